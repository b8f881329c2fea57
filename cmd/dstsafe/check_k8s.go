package main

import (
	"fmt"
	"path"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/cmd/dstsafevet"
)

// This file reads Kubernetes CronJobs: spec.schedule in spec.timeZone,
// and a container that wraps its work in dstsafe exec, whose --schedule
// must name the CronJob's times in the CronJob's zone.

const (
	k8sScheduleZoneMsg = "Kubernetes never supported a CRON_TZ= or TZ= prefix in a CronJob's spec.schedule (recent releases' API validation rejects it, older ones ran it by accident of their cron parser); put the zone in spec.timeZone"
	k8sNoTimeZoneMsg   = "this CronJob has no spec.timeZone, so it runs in the kube-controller-manager's zone (UTC on most clusters, the node's zone on some); set spec.timeZone to Etc/UTC, or to the zone the job must follow"
	k8sExecNoZoneMsg   = "this CronJob has no spec.timeZone, so Kubernetes triggers it at %q in the kube-controller-manager's zone (UTC on most clusters), while its dstsafe exec --schedule %q looks for periods in %s: the triggers come at other instants than exec's periods, and exec finds nothing due (or another period); set spec.timeZone: %s"
	k8sExecScheduleMsg = "the container runs dstsafe exec --schedule %q, but the CronJob fires %q in %s: exec would look for another schedule's periods; give it --schedule '%s'"
	k8sExecBadMsg      = "the container runs dstsafe exec --schedule %q, which exec rejects (%v), so every run exits 2"
)

// cronJob checks a Kubernetes CronJob's spec.schedule and spec.timeZone,
// and the dstsafe exec its containers run.
func (ck *checker) cronJob(name string, root *yaml.Node, skip map[*yaml.Node]bool) {
	spec := resolve(get(root, "spec"))
	sched := resolve(get(spec, "schedule"))
	if sched == nil || sched.Kind != yaml.ScalarNode {
		return
	}
	skip[sched] = true
	if zone, _ := dstsafevet.SplitZone(sched.Value); zone != "" {
		ck.add(name, sched.Line, sched.Column, "k8s-schedule-zone", levelError, k8sScheduleZoneMsg)
		return
	}
	tz := resolve(get(spec, "timeZone"))
	ex := execOf(root)
	if ex.unresolved != "" {
		ck.notUnderstood(name, sched.Line, "Kubernetes CronJob", "dstsafe exec's --schedule is "+ex.unresolved+", which this check does not resolve")
	}
	if tz == nil || tz.Kind != yaml.ScalarNode {
		if ex.wrapped && ex.spec != "" {
			if zone, _ := dstsafevet.SplitZone(ex.spec); zone != "" && !isUTC(zone) {
				ck.add(name, sched.Line, sched.Column, "k8s-exec-no-timezone", levelError, k8sExecNoZoneMsg, sched.Value, ex.spec, zone, zone)
				return
			}
		}
		if ex.wrapped {
			ck.add(name, sched.Line, sched.Column, "k8s-no-timezone", levelNote, k8sNoTimeZoneMsg+"; the container already runs dstsafe exec: give spec.timeZone the zone of its --schedule (Etc/UTC for a schedule without CRON_TZ=)")
			return
		}
		ck.add(name, sched.Line, sched.Column, "k8s-no-timezone", levelNote, k8sNoTimeZoneMsg+"; to follow a local zone and run each period once, set spec.timeZone and wrap the container's command: %s", k8sExecHint(root, sched.Value, ""))
		return
	}
	skip[tz] = true
	loc, ok := ck.zone(name, tz.Line, tz.Column, tz.Value)
	if !ok {
		return
	}
	if ex.wrapped {
		// dstsafe exec claims each period in a ledger, so the controller's
		// second trigger in a fold (or a retried pod) runs nothing: the
		// window is harmless. What remains is that exec reads the same
		// schedule, or its periods are not the CronJob's. Without
		// --schedule exec reads the job's registered schedule.
		if ex.spec != "" {
			ck.compareExec(name, sched, tz.Value, loc, ex.spec)
		}
		return
	}
	ck.risky(name, sched.Line, sched.Column, sched.Value, tz.Value, riskSubject{
		what:   fmt.Sprintf("schedule %q", sched.Value),
		zone:   tz.Value,
		suffix: "; or keep the local time and run each period once: wrap the container's command with " + k8sExecHint(root, sched.Value, tz.Value),
	}, dstsafe.WithLocation(loc))
}

// compareExec reports an exec --schedule whose instants are not the
// CronJob's: another time, another zone, another day. Specs are compared
// by what they fire (the next 400 instants from --from), so "0 2 * * 1-5"
// and "CRON_TZ=... 0 2 * * MON-FRI" agree, and so do UTC's names.
func (ck *checker) compareExec(name string, sched *yaml.Node, zone string, loc *time.Location, execSpec string) {
	want := "CRON_TZ=" + zone + " " + sched.Value
	theirs, err := dstsafevet.ParseSpec(execSpec)
	if err != nil {
		ck.add(name, sched.Line, sched.Column, "k8s-exec-schedule", levelError, k8sExecBadMsg, execSpec, err)
		return
	}
	ours, err := dstsafevet.ParseSpec(sched.Value, dstsafe.WithLocation(loc))
	if err != nil {
		return // Kubernetes rejects it too; not exec's problem
	}
	a, b := ck.from, ck.from
	for i := 0; i < 400; i++ {
		a, b = ours.Next(a), theirs.Next(b)
		if !a.Equal(b) {
			ck.add(name, sched.Line, sched.Column, "k8s-exec-schedule", levelError, k8sExecScheduleMsg, execSpec, sched.Value, zone, want)
			return
		}
		if a.IsZero() {
			return
		}
	}
}

// execCall is what a CronJob's container tells dstsafe exec.
type execCall struct {
	wrapped bool
	// spec is exec's --schedule, after Kubernetes' $(VAR) and the shell's
	// $VAR expansion from the container's env; "" when not given.
	spec string
	// unresolved is a --schedule value this check could not expand.
	unresolved string
}

var (
	k8sVarRef   = lazyRE(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)
	shellVarRef = lazyRE(`\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?`)
)

// execOf finds the container of a CronJob that runs dstsafe exec, in any
// form exec accepts: the command and args as words (["dstsafe", "exec",
// ...], or command ["dstsafe"] and args ["exec", ...]), or a shell -c
// script that calls it; --schedule X, --schedule=X, -schedule X or
// -schedule=X. Kubernetes expands $(VAR) in command and args from the
// container's env, and the shell $VAR and ${VAR} in a script: both are
// followed when the env gives a literal value.
func execOf(root *yaml.Node) execCall {
	containers := resolve(get(get(get(get(get(get(root, "spec"), "jobTemplate"), "spec"), "template"), "spec"), "containers"))
	if containers == nil || containers.Kind != yaml.SequenceNode {
		return execCall{}
	}
	for _, c := range containers.Content {
		env := map[string]string{}
		if seq := resolve(get(c, "env")); seq != nil && seq.Kind == yaml.SequenceNode {
			for _, e := range seq.Content {
				if v := resolve(get(e, "value")); v != nil && v.Kind == yaml.ScalarNode {
					env[scalar(get(e, "name"))] = v.Value
				}
			}
		}
		var argv []string
		for _, key := range []string{"command", "args"} {
			if seq := resolve(get(c, key)); seq != nil && seq.Kind == yaml.SequenceNode {
				for _, w := range seq.Content {
					argv = append(argv, k8sVarRef.ReplaceAllStringFunc(scalar(w), func(ref string) string {
						if v, ok := env[ref[2:len(ref)-1]]; ok {
							return v
						}
						return ref // Kubernetes leaves an unknown reference as written
					}))
				}
			}
		}
		if call, ok := execInWords(argv); ok {
			return call
		}
		// A shell script: any word that calls dstsafe exec.
		for _, w := range argv {
			if !strings.Contains(w, "dstsafe") {
				continue
			}
			words := shellWords(strings.ReplaceAll(w, "\\\n", " "))
			for i, x := range words {
				words[i] = shellVarRef.ReplaceAllStringFunc(x, func(ref string) string {
					n := strings.Trim(ref[1:], "{}")
					if v, ok := env[n]; ok {
						return v
					}
					return ref
				})
			}
			if call, ok := execInWords(words); ok {
				return call
			}
		}
	}
	return execCall{}
}

// execInWords reads a dstsafe exec call from argument words: a word whose
// base name is dstsafe followed by exec, then its flags up to "--".
func execInWords(words []string) (execCall, bool) {
	start := -1
	for i := 0; i+1 < len(words); i++ {
		if path.Base(words[i]) == "dstsafe" && words[i+1] == "exec" {
			start = i + 2
			break
		}
	}
	if start < 0 {
		return execCall{}, false
	}
	call := execCall{wrapped: true}
	for i := start; i < len(words); i++ {
		f := words[i]
		if f == "--" {
			break
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(f, "-"), "=")
		if !strings.HasPrefix(f, "-") || name != "schedule" {
			continue
		}
		if !hasVal {
			if i+1 >= len(words) {
				break
			}
			val = words[i+1]
			i++
		}
		call.spec = val
	}
	if strings.Contains(call.spec, "$") {
		call.unresolved, call.spec = fmt.Sprintf("%q", call.spec), ""
	}
	return call, true
}

// k8sExecHint is the dstsafe exec command a Kubernetes CronJob's container
// can be wrapped with, so that each period runs once whatever the
// controller does around a transition.
func k8sExecHint(root *yaml.Node, spec, zone string) string {
	job := scalar(get(get(root, "metadata"), "name"))
	if job == "" {
		job = "NAME"
	}
	if zone == "" {
		zone = "ZONE"
	}
	cmd := "CMD..."
	containers := resolve(get(get(get(get(get(get(root, "spec"), "jobTemplate"), "spec"), "template"), "spec"), "containers"))
	if containers != nil && containers.Kind == yaml.SequenceNode && len(containers.Content) > 0 {
		var words []string
		for _, key := range []string{"command", "args"} {
			if seq := resolve(get(containers.Content[0], key)); seq != nil && seq.Kind == yaml.SequenceNode {
				for _, w := range seq.Content {
					words = append(words, shellQuote(scalar(w)))
				}
			}
		}
		if len(words) > 0 {
			cmd = strings.Join(words, " ")
		}
	}
	return fmt.Sprintf("dstsafe exec --ledger URL --job %s --schedule 'CRON_TZ=%s %s' -- %s", job, zone, spec, cmd)
}
