package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/cmd/dstsafevet"
)

// scheduleKeys are the mapping keys whose values are cron specs.
var scheduleKeys = map[string]bool{"schedule": true, "cron": true, "cronspec": true, "cron_spec": true, "crontab": true, "cron_schedule": true, "cronschedule": true}

// zoneKeys name the zone of the specs beside them.
var zoneKeys = map[string]bool{"timeZone": true, "time_zone": true, "timezone": true}

// helmAction is a Go template action as Helm charts write them ({{ .Values.x }},
// {{- include ... }}), not GitHub's ${{ ... }}, Argo's {{workflow.name}}
// or the {{.RunDate}} dstsafe exec fills in.
var helmAction = lazyRE(`(?:^|[^$])\{\{-?\s*(?:-|\.(?:Values|Release|Chart|Files|Capabilities|Template)\b|\$|(?:include|template|if|range|with|end|define|toYaml|tpl|default|quote|printf|required|else)\b)`)

// yamlFile checks every document of a YAML file. A Helm template is not
// understood, whether or not it parses as YAML: its values come later.
func (ck *checker) yamlFile(name string, data []byte) {
	if loc := helmAction.FindIndex(data); loc != nil {
		ck.notUnderstood(name, 1+bytes.Count(data[:loc[0]], []byte("\n")), "Helm template",
			"its values are filled in when the chart is rendered; check the rendered manifests: helm template CHART > rendered.yaml && dstsafe check rendered.yaml")
		return
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			ck.notUnderstood(name, errorLine(err), "YAML", "does not parse: "+strings.TrimPrefix(err.Error(), "yaml: "))
			return
		}
		if len(doc.Content) > 0 {
			ck.document(name, doc.Content[0])
		}
	}
}

// errorLine returns the line a YAML error names, or 1.
func errorLine(err error) int {
	var line int
	if _, e := fmt.Sscanf(strings.TrimPrefix(err.Error(), "yaml: "), "line %d:", &line); e == nil && line > 0 {
		return line
	}
	return 1
}

// jsonFile checks a JSON file: read into YAML nodes (JSON is YAML's flow
// style) with the line of every value, then checked as YAML.
func (ck *checker) jsonFile(name string, data []byte) {
	n, err := jsonNodes(data)
	if err != nil {
		ck.notUnderstood(name, 1, "JSON", "does not parse: "+err.Error())
		return
	}
	ck.document(name, n)
}

// document checks one YAML document: a Kubernetes CronJob (or a List of
// them), a GitHub Actions workflow, or anything else walked for TZ
// settings and cron specs.
func (ck *checker) document(name string, root *yaml.Node) {
	root = resolve(root)
	skip := map[*yaml.Node]bool{}
	switch {
	case scalar(get(root, "kind")) == "List":
		if items := resolve(get(root, "items")); items != nil && items.Kind == yaml.SequenceNode {
			for _, it := range items.Content {
				ck.document(name, it)
			}
			return
		}
	case scalar(get(root, "kind")) == "CronJob" && strings.HasPrefix(scalar(get(root, "apiVersion")), "batch/"):
		ck.cronJob(name, root, skip)
	case get(root, "on") != nil && get(root, "jobs") != nil:
		// GitHub Actions: on.schedule crons run in UTC, always.
		if sched := resolve(get(resolve(get(root, "on")), "schedule")); sched != nil {
			skip[sched] = true
		}
	}
	ck.walk(name, root, skip, map[*yaml.Node]bool{})
}

// walk visits every node once (aliases lead back to their anchors):
// TZ keys, TZ=... list items, Kubernetes env entries {name: TZ, value: X},
// and cron specs under schedule keys with the zone of their prefix or of a
// timeZone key beside them.
func (ck *checker) walk(name string, n *yaml.Node, skip, seen map[*yaml.Node]bool) {
	n = resolve(n)
	if n == nil || seen[n] || skip[n] {
		return
	}
	seen[n] = true
	switch n.Kind {
	case yaml.SequenceNode:
		for _, c := range n.Content {
			c = resolve(c)
			if c.Kind == yaml.ScalarNode {
				if v, ok := strings.CutPrefix(c.Value, "TZ="); ok {
					ck.tz(name, c.Line, c.Column, v)
				}
			}
			ck.walk(name, c, skip, seen)
		}
	case yaml.MappingNode:
		ck.eventBridge(name, n)
		if ck.azureBinding(name, n) {
			skip[resolve(get(n, "schedule"))] = true
		}
		kvs := entries(n)
		if strings.EqualFold(scalar(get(n, "name")), "TZ") {
			if v := resolve(get(n, "value")); v != nil && v.Kind == yaml.ScalarNode {
				ck.tz(name, v.Line, v.Column, v.Value)
			}
		}
		hasSpec := false
		for _, kv := range kvs {
			hasSpec = hasSpec || scheduleKeys[strings.ToLower(kv.key)] && kv.value.Kind == yaml.ScalarNode && looksLikeCron(kv.value.Value) ||
				len(cronList(kv)) > 0
		}
		zone := ""
		for _, kv := range kvs {
			if hasSpec && zoneKeys[kv.key] && kv.value.Kind == yaml.ScalarNode && !skip[kv.value] {
				zone = kv.value.Value
				if _, ok := ck.zone(name, kv.value.Line, kv.value.Column, zone); !ok {
					zone = ""
				}
			}
		}
		for _, kv := range kvs {
			v := kv.value
			switch {
			case skip[v]:
			case kv.key == "TZ" && v.Kind == yaml.ScalarNode:
				ck.tz(name, v.Line, v.Column, v.Value)
			case scheduleKeys[strings.ToLower(kv.key)] && v.Kind == yaml.ScalarNode && looksLikeCron(v.Value):
				ck.spec(name, v, zone)
			default:
				for _, item := range cronList(kv) {
					ck.spec(name, item, zone)
				}
			}
			ck.walk(name, v, skip, seen)
		}
	}
}

// spec checks a cron spec written in a YAML or JSON value.
func (ck *checker) spec(name string, v *yaml.Node, docZone string) {
	zone, _ := dstsafevet.SplitZone(v.Value)
	if zone != "" {
		ck.window(name, v.Line, v.Column, v.Value, zone)
		return
	}
	if rest, zone, ok := trailingZone(v.Value); ok {
		// sidekiq-cron and fugit (rufus-scheduler, GoodJob) write the
		// zone after the fields: "30 1 * * * America/Chicago".
		if loc, ok := ck.zone(name, v.Line, v.Column, zone); ok {
			ck.windowAs(name, v.Line, v.Column, rest, v.Value, zone, dstsafe.WithLocation(loc))
		}
		return
	}
	if docZone == "" {
		return
	}
	loc, err := time.LoadLocation(docZone)
	if err != nil {
		return // reported where the zone is written
	}
	ck.window(name, v.Line, v.Column, v.Value, docZone, dstsafe.WithLocation(loc))
}

// cronList returns the cron specs of a schedules: list (an Argo
// CronWorkflow's spec.schedules).
func cronList(kv keyValue) []*yaml.Node {
	if !strings.EqualFold(kv.key, "schedules") || kv.value.Kind != yaml.SequenceNode {
		return nil
	}
	var out []*yaml.Node
	for _, it := range kv.value.Content {
		if it = resolve(it); it.Kind == yaml.ScalarNode && looksLikeCron(it.Value) {
			out = append(out, it)
		}
	}
	return out
}

type keyValue struct {
	key   string
	value *yaml.Node
}

// entries returns a mapping's entries, with merge keys (<<: *anchor)
// expanded; keys written in the mapping win over merged ones.
func entries(n *yaml.Node) []keyValue {
	var own, merged []keyValue
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
		if k.Tag == "!!merge" || k.Value == "<<" {
			var srcs []*yaml.Node
			if v.Kind == yaml.SequenceNode {
				srcs = v.Content
			} else {
				srcs = []*yaml.Node{v}
			}
			for _, s := range srcs {
				if s = resolve(s); s.Kind == yaml.MappingNode {
					merged = append(merged, entries(s)...)
				}
			}
			continue
		}
		own = append(own, keyValue{k.Value, v})
	}
	out := own
	for _, m := range merged {
		dup := false
		for _, o := range own {
			dup = dup || o.key == m.key
		}
		if !dup {
			out = append(out, m)
		}
	}
	return out
}

// get returns a mapping's value for key, or nil.
func get(n *yaml.Node, key string) *yaml.Node {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for _, kv := range entries(n) {
		if kv.key == key {
			return kv.value
		}
	}
	return nil
}

// scalar returns a scalar node's value, or "".
func scalar(n *yaml.Node) string {
	n = resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// resolve follows aliases to their anchors.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		return resolve(n.Content[0])
	}
	return n
}

// jsonNodes reads a JSON document into YAML nodes carrying the line and
// column of each value.
func jsonNodes(data []byte) (*yaml.Node, error) {
	lineStarts := []int{0}
	for i, b := range data {
		if b == '\n' {
			lineStarts = append(lineStarts, i+1)
		}
	}
	pos := func(off int64) (int, int) {
		// off is just past the token; back up over it to where it starts.
		o := int(off)
		lo, hi := 0, len(lineStarts)
		for lo+1 < hi {
			mid := (lo + hi) / 2
			if lineStarts[mid] <= o {
				lo = mid
			} else {
				hi = mid
			}
		}
		return lo + 1, o - lineStarts[lo] + 1
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var parse func() (*yaml.Node, error)
	parse = func() (*yaml.Node, error) {
		// The value starts at the first non-space byte after the
		// decoder's offset (past a separator it consumed).
		start := int(dec.InputOffset())
		for start < len(data) && strings.ContainsRune(" \t\r\n,:", rune(data[start])) {
			start++
		}
		line, col := pos(int64(start))
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case json.Delim:
			n := &yaml.Node{Kind: yaml.MappingNode, Line: line, Column: col}
			if t == '[' {
				n.Kind = yaml.SequenceNode
			}
			for dec.More() {
				if n.Kind == yaml.MappingNode {
					k, err := parse()
					if err != nil {
						return nil, err
					}
					n.Content = append(n.Content, k)
				}
				v, err := parse()
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, v)
			}
			if _, err := dec.Token(); err != nil { // the closing delimiter
				return nil, err
			}
			return n, nil
		case string:
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: t, Line: line, Column: col}, nil
		default:
			return &yaml.Node{Kind: yaml.ScalarNode, Value: fmt.Sprint(t), Line: line, Column: col}, nil
		}
	}
	n, err := parse()
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("data after the top-level value")
	}
	return n, nil
}

// trailingZone splits a zone written after a spec's fields ("30 1 * * *
// America/Chicago", fugit's and sidekiq-cron's form) off the spec.
func trailingZone(spec string) (rest, zone string, ok bool) {
	f := strings.Fields(spec)
	if len(f) < 6 {
		return "", "", false
	}
	last := f[len(f)-1]
	if !strings.Contains(last, "/") && !isUTC(last) || strings.ContainsAny(last, "*,") || last[0] >= '0' && last[0] <= '9' {
		return "", "", false
	}
	return strings.Join(f[:len(f)-1], " "), last, true
}
