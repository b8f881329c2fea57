package billing

// Zones are the billing zones of the per-customer local-midnight example:
// customers in 40+ countries, with every kind of transition the tz database
// has near midnight.
var Zones = []string{
	"America/Chicago", "America/New_York", "America/Denver", "America/Los_Angeles",
	"America/Anchorage", "Pacific/Honolulu", "America/Havana", // midnight gap in March, doubled midnight in November
	"America/Sao_Paulo", // midnight gap until 2019 (2018-11-04)
	"America/Santiago",  // midnight gap in September
	"America/Asuncion", "America/Mexico_City", "America/Bogota", "America/Halifax",
	"America/St_Johns", "America/Argentina/Buenos_Aires", "America/Nuuk",
	"Atlantic/Azores", // DST transition at 00:00 UTC, 00:00/01:00 local
	"Europe/London", "Europe/Dublin", "Europe/Lisbon", "Europe/Paris", "Europe/Berlin",
	"Europe/Athens", "Europe/Helsinki", "Europe/Istanbul", "Europe/Moscow",
	"Asia/Beirut", // midnight gap in March
	"Asia/Jerusalem", "Asia/Gaza", "Africa/Cairo", "Asia/Amman", "Asia/Tehran",
	"Asia/Dubai", "Asia/Karachi", "Asia/Kolkata", "Asia/Kathmandu", "Asia/Dhaka",
	"Asia/Bangkok", "Asia/Shanghai", "Asia/Tokyo", "Asia/Seoul",
	"Australia/Adelaide", "Australia/Sydney", "Australia/Lord_Howe", // 30-minute DST
	"Pacific/Auckland", "Pacific/Chatham", "Pacific/Apia", "Pacific/Kiritimati",
	"Africa/Casablanca", "Africa/Lagos", "Africa/Johannesburg",
}
