package calendar

import (
	"time"
)

// USFederalHolidays returns the eleven legal public holidays of the
// United States federal government (5 U.S.C. 6103), observed on the
// nearest weekday when they fall on a weekend (a Saturday holiday on the
// Friday before, a Sunday one on the Monday after), with Juneteenth from
// 2021 and Martin Luther King Jr. Day from 1986.
//
// It is an example of a holiday calendar built from Holiday rules, not a
// maintained holiday database: it has no one-off closures (inauguration
// day, national days of mourning, executive orders giving a day off),
// applies today's Monday rules to years before 1971, and will not follow a
// change in the law. Banks close on other days (the Federal Reserve does
// not move Saturday holidays to Friday). Build the calendar your business
// uses with NewHolidays, Dates and Union.
func USFederalHolidays() *Holidays {
	nearest := ObservedNearestWeekday
	return NewHolidays(
		FixedHoliday("New Year's Day", time.January, 1).Observed(nearest),
		NthWeekdayHoliday("Birthday of Martin Luther King, Jr.", 3, time.Monday, time.January).Years(1986, 0),
		NthWeekdayHoliday("Washington's Birthday", 3, time.Monday, time.February),
		LastWeekdayHoliday("Memorial Day", time.Monday, time.May),
		FixedHoliday("Juneteenth National Independence Day", time.June, 19).Observed(nearest).Years(2021, 0),
		FixedHoliday("Independence Day", time.July, 4).Observed(nearest),
		NthWeekdayHoliday("Labor Day", 1, time.Monday, time.September),
		NthWeekdayHoliday("Columbus Day", 2, time.Monday, time.October),
		FixedHoliday("Veterans Day", time.November, 11).Observed(nearest),
		NthWeekdayHoliday("Thanksgiving Day", 4, time.Thursday, time.November),
		FixedHoliday("Christmas Day", time.December, 25).Observed(nearest),
	)
}
