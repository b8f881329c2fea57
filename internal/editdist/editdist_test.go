package editdist

import "testing"

func TestBounded(t *testing.T) {
	for _, tc := range []struct {
		a, b  string
		bound int
		want  int
	}{
		{"America/Chicgo", "America/Chicago", 3, 1}, // one letter left out
		{"billng", "billing", 3, 1},
		{"europe/london", "Europe/London", 5, 2}, // case counts
		{"kitten", "sitting", 5, 3},
		{"kitten", "sitting", 2, 3}, // over the bound: bound+1
		{"a", "abcdef", 2, 3},       // lengths alone exceed it
		{"é", "e", 3, 1},            // runes, not bytes
		{"", "", 0, 0},
	} {
		if got := Bounded(tc.a, tc.b, tc.bound); got != tc.want {
			t.Errorf("Bounded(%q, %q, %d) = %d, want %d", tc.a, tc.b, tc.bound, got, tc.want)
		}
	}
}
