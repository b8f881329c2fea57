package dstsafe_test

import (
	"encoding/json"
	"fmt"

	"github.com/dstsafe/dstsafe"
)

// A monthly subscription billed on the 31st: each next period is counted
// from the first, clamped to the month's last day.
func ExampleDate_AddMonths() {
	start, err := dstsafe.ParseDate("2024-01-31")
	if err != nil {
		fmt.Println(err)
		return
	}
	for n := range 4 {
		d := start.AddMonths(n)
		fmt.Println(d, d.Weekday())
	}
	// Output:
	// 2024-01-31 Wednesday
	// 2024-02-29 Thursday
	// 2024-03-31 Sunday
	// 2024-04-30 Tuesday
}

func ExampleParseDate() {
	d, err := dstsafe.ParseDate("2024-11-03")
	fmt.Println(d, err, d.AddDays(1), d.Before(d.AddDays(1)))

	_, err = dstsafe.ParseDate("2024-02-30")
	fmt.Println(err)

	b, _ := json.Marshal(struct{ RunDate dstsafe.Date }{d})
	fmt.Println(string(b))
	// Output:
	// 2024-11-03 <nil> 2024-11-04 true
	// dstsafe: parse date "2024-02-30": want YYYY-MM-DD, a real calendar date: invalid wall time
	// {"RunDate":"2024-11-03"}
}
