package testsflag

import "time"

func due() bool {
	now := time.Now()
	return now.Hour() == 1 && now.Minute() == 30
}
