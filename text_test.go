package dstsafe_test

import (
	"encoding"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/event"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// textValue is an enum value behind the interfaces the text methods give it.
type textValue interface {
	encoding.TextMarshaler
	fmt.Stringer
}

// enumCase lists one enum's values with the names written out by hand, the
// zero pointer to unmarshal into, and what String says of the first value
// past the last: a new constant changes it and fails this table until
// text.go and the names here learn about it.
type enumCase struct {
	names    map[string]textValue
	newPtr   func() encoding.TextUnmarshaler
	deref    func(encoding.TextUnmarshaler) textValue
	past     textValue
	pastName string
}

func ptrCase[T any, P interface {
	*T
	encoding.TextUnmarshaler
}](names map[string]textValue, past textValue, pastName string) enumCase {
	return enumCase{
		names:    names,
		newPtr:   func() encoding.TextUnmarshaler { return P(new(T)) },
		deref:    func(u encoding.TextUnmarshaler) textValue { return any(*u.(P)).(textValue) },
		past:     past,
		pastName: pastName,
	}
}

var enumCases = map[string]enumCase{
	"FoldPolicy": ptrCase[dstsafe.FoldPolicy](map[string]textValue{
		"auto": dstsafe.FoldPolicy(0), "first": dstsafe.FoldFirst, "last": dstsafe.FoldLast, "both": dstsafe.FoldBoth,
	}, dstsafe.FoldPolicy(4), "FoldPolicy(4)"),
	"GapPolicy": ptrCase[dstsafe.GapPolicy](map[string]textValue{
		"auto": dstsafe.GapPolicy(0), "shift": dstsafe.GapShift, "at-transition": dstsafe.GapAtTransition, "skip": dstsafe.GapSkip,
	}, dstsafe.GapPolicy(4), "GapPolicy(4)"),
	"PeriodKey": ptrCase[dstsafe.PeriodKey](map[string]textValue{
		"wall": dstsafe.ByWall, "date": dstsafe.ByDate,
	}, dstsafe.PeriodKey(2), "PeriodKey(2)"),
	"Disambiguation": ptrCase[dstsafe.Disambiguation](map[string]textValue{
		"compatible": dstsafe.Compatible, "earlier": dstsafe.Earlier, "later": dstsafe.Later, "reject": dstsafe.Reject,
	}, dstsafe.Disambiguation(4), "Disambiguation(4)"),
	"Kind": ptrCase[dstsafe.Kind](map[string]textValue{
		"": dstsafe.Kind(0), "unique": dstsafe.Unique, "fold": dstsafe.Fold, "gap": dstsafe.Gap,
	}, dstsafe.Kind(4), "invalid"),
	"State": ptrCase[dstsafe.State](map[string]textValue{
		"": dstsafe.State(0), "running": dstsafe.StateRunning, "succeeded": dstsafe.StateSucceeded,
		"failed": dstsafe.StateFailed, "abandoned": dstsafe.StateAbandoned, "skipped": dstsafe.StateSkipped,
	}, dstsafe.State(6), "invalid"),
	"Overlap": ptrCase[dstsafe.Overlap](map[string]textValue{
		"skip": dstsafe.OverlapSkip, "queue": dstsafe.OverlapQueue, "allow": dstsafe.OverlapAllow,
		"cancel-running": dstsafe.OverlapCancelRunning, "buffer-one": dstsafe.OverlapBufferOne,
	}, dstsafe.Overlap(5), "invalid"),
	"event.Type": ptrCase[event.Type](map[string]textValue{
		"": event.Type(0), "due": event.Due, "claimed": event.Claimed,
		"claimed-elsewhere": event.ClaimedElsewhere, "started": event.Started,
		"succeeded": event.Succeeded, "failed": event.Failed, "skipped": event.Skipped,
		"lease-lost": event.LeaseLost, "late": event.Late, "paused": event.Paused,
		"resumed": event.Resumed, "clock-skew": event.ClockSkew, "zone-data": event.ZoneData,
		"ledger-error": event.LedgerError, "at-risk": event.AtRisk, "missed": event.Missed,
	}, event.Type(17), "invalid"),
}

func TestEnumTextRoundTrip(t *testing.T) {
	for typ, c := range enumCases {
		t.Run(typ, func(t *testing.T) {
			for name, v := range c.names {
				text, err := v.MarshalText()
				require.NoError(t, err)
				assert.Equal(t, name, string(text))

				for _, in := range []string{name, strings.ToUpper(name)} {
					p := c.newPtr()
					require.NoError(t, p.UnmarshalText([]byte(in)), "unmarshal %q", in)
					assert.Equal(t, v, c.deref(p), "unmarshal %q", in)
				}
			}
			// The table holds every value: the next one has no name.
			assert.Equal(t, c.pastName, c.past.String())
			_, err := c.past.MarshalText()
			assert.ErrorIs(t, err, dstsafe.ErrInvalidArgument)
		})
	}
}

func TestEnumTextUnknown(t *testing.T) {
	for typ, c := range enumCases {
		t.Run(typ, func(t *testing.T) {
			for _, bad := range []string{"bogus", " " + firstName(c), firstName(c) + "x", "1", c.pastName} {
				p := c.newPtr()
				before := c.deref(p)
				err := p.UnmarshalText([]byte(bad))
				assert.ErrorIs(t, err, dstsafe.ErrInvalidArgument, "unmarshal %q", bad)
				assert.Equal(t, before, c.deref(p), "a failed unmarshal of %q leaves the value alone", bad)
			}
		})
	}
}

// firstName returns one non-empty name of c.
func firstName(c enumCase) string {
	for name := range c.names {
		if name != "" {
			return name
		}
	}
	panic("no names")
}

func TestEnumTextErrorNamesTheValue(t *testing.T) {
	var p dstsafe.FoldPolicy
	err := p.UnmarshalText([]byte("twice"))
	require.ErrorIs(t, err, dstsafe.ErrInvalidArgument)
	assert.Equal(t, `dstsafe: unknown fold policy "twice": want auto, first, last or both`, err.Error())

	_, err = dstsafe.GapPolicy(9).MarshalText()
	require.ErrorIs(t, err, dstsafe.ErrInvalidArgument)
	assert.Equal(t, `dstsafe: unknown gap policy 9: want auto, shift, at-transition or skip`, err.Error())
}

func TestGapPolicyTextAliases(t *testing.T) {
	// The spellings ParseGapPolicy took, kept for config files written for it.
	for _, in := range []string{"attransition", "AtTransition", "at_transition", "AT-TRANSITION"} {
		var p dstsafe.GapPolicy
		require.NoError(t, p.UnmarshalText([]byte(in)), in)
		assert.Equal(t, dstsafe.GapAtTransition, p, in)
	}
}

func TestEnumTextVar(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		fold    dstsafe.FoldPolicy
		gap     dstsafe.GapPolicy
		key     dstsafe.PeriodKey
		dis     dstsafe.Disambiguation
		overlap dstsafe.Overlap
	)
	fs.TextVar(&fold, "fold", dstsafe.FoldPolicy(0), "")
	fs.TextVar(&gap, "gap", dstsafe.GapPolicy(0), "")
	fs.TextVar(&key, "key", dstsafe.ByWall, "")
	fs.TextVar(&dis, "policy", dstsafe.Compatible, "")
	fs.TextVar(&overlap, "overlap", dstsafe.OverlapSkip, "")
	require.NoError(t, fs.Parse([]string{"--fold", "Last", "--gap=skip", "--key", "date", "--policy", "reject"}))
	assert.Equal(t, dstsafe.FoldLast, fold)
	assert.Equal(t, dstsafe.GapSkip, gap)
	assert.Equal(t, dstsafe.ByDate, key)
	assert.Equal(t, dstsafe.Reject, dis)
	assert.Equal(t, dstsafe.OverlapSkip, overlap, "default")
	assert.Equal(t, "skip", fs.Lookup("overlap").DefValue)

	err := fs.Parse([]string{"--overlap", "sometimes"})
	assert.Error(t, err)
	assert.Equal(t, dstsafe.OverlapSkip, overlap)
}

func TestEnumTextJSON(t *testing.T) {
	type config struct {
		Fold    dstsafe.FoldPolicy     `json:"fold"`
		Gap     dstsafe.GapPolicy      `json:"gap"`
		Key     dstsafe.PeriodKey      `json:"key"`
		Policy  dstsafe.Disambiguation `json:"policy"`
		Kind    dstsafe.Kind           `json:"kind"`
		State   dstsafe.State          `json:"state"`
		Overlap dstsafe.Overlap        `json:"overlap"`
	}
	in := config{dstsafe.FoldBoth, dstsafe.GapAtTransition, dstsafe.ByDate, dstsafe.Later,
		dstsafe.Fold, dstsafe.StateAbandoned, dstsafe.OverlapQueue}
	b, err := json.Marshal(in)
	require.NoError(t, err)
	assert.JSONEq(t, `{"fold":"both","gap":"at-transition","key":"date","policy":"later",
		"kind":"fold","state":"abandoned","overlap":"queue"}`, string(b))
	var out config
	require.NoError(t, json.Unmarshal(b, &out))
	assert.Equal(t, in, out)

	// The zero config: Kind and State have no named zero and marshal to "".
	b, err = json.Marshal(config{})
	require.NoError(t, err)
	assert.JSONEq(t, `{"fold":"auto","gap":"auto","key":"wall","policy":"compatible",
		"kind":"","state":"","overlap":"skip"}`, string(b))
	out = in
	require.NoError(t, json.Unmarshal(b, &out))
	assert.Equal(t, config{}, out)

	err = json.Unmarshal([]byte(`{"state":"done"}`), &out)
	assert.ErrorIs(t, err, dstsafe.ErrInvalidArgument)
	_, err = json.Marshal(config{Overlap: 7})
	assert.ErrorIs(t, err, dstsafe.ErrInvalidArgument)
	var je *json.MarshalerError
	assert.True(t, errors.As(err, &je))
}
