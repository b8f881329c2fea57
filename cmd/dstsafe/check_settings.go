package main

import (
	"fmt"
	"path/filepath"
	"strings"
)

// A setting is a zone one file sets for the schedules of others, or its
// own: an Azure Functions app's WEBSITE_TIME_ZONE, pg_cron's
// cron.timezone, Celery's timezone (or Django's TIME_ZONE). A setting
// applies to the file that writes it and to the files in its directory
// and below: local.settings.json beside the functions, postgresql.conf
// beside the SQL that schedules jobs, celeryconfig.py beside the app.
type setting struct {
	key   string
	file  string
	line  int
	value string
	// unresolved: the value is an expression (${var.zone}, settings.TZ)
	// this check does not follow.
	unresolved bool
}

const (
	settingWebsiteTZ = "WEBSITE_TIME_ZONE"
	settingPgCron    = "cron.timezone"
	settingCelery    = "Celery timezone"
	settingCeleryApp = "Celery app timezone" // app.conf: its own file only
	settingDjango    = "Django TIME_ZONE"
)

var (
	websiteTZ     = lazyRE(`WEBSITE_TIME_ZONE["']?\s*(?:[=:]\s*|["']?\s*,\s*["']?value["']?\s*[:=]\s*|\n\s*value\s*:\s*)["']?([^"'\n,}]+?)["']?\s*(?:[,}\n]|$)`)
	pgCronTZ      = lazyRE(`\bcron\.timezone["']?\s*(?:=|\b(?:TO|to)\b|:)\s*['"]?([A-Z][A-Za-z_]*(?:/[A-Za-z0-9_+\-]+)*)`)
	pgCronTZParam = lazyRE(`name\s*=\s*"cron\.timezone"\s*\n\s*value\s*=\s*"([^"]+)"`)
	celeryTZ      = lazyRE(`(?m)(?:\.conf\.timezone\s*=\s*|\bconf\.update\([^)]*?\btimezone\s*=\s*|\bCelery\([^)]*?\btimezone\s*=\s*)["']([^"']+)["']`)
	celeryTZExpr  = lazyRE(`(?m)(?:\.conf\.timezone\s*=\s*|^CELERY_TIMEZONE\s*=\s*)([A-Za-z_][\w.]*(?:\([^)\n]*\)|\[[^\]\n]*\])?)`)
	celeryEnvTZ   = lazyRE(`(?m)^CELERY_TIMEZONE\s*=\s*["']([^"']+)["']`)
	celeryModTZ   = lazyRE(`(?m)^timezone\s*=\s*["']([^"']+)["']`)
	hclRef        = lazyRE(`^(?:var|local|module|data)\.`)
	djangoTZ      = lazyRE(`(?m)^TIME_ZONE\s*=\s*["']([^"']+)["']`)
)

// collectSettings reads the zone settings every file writes.
func (ck *checker) collectSettings(files []*checkFile) {
	for _, f := range files {
		text := string(f.data)
		add := func(key string, re *lazyRegexp) {
			for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
				v := strings.TrimSpace(text[m[2]:m[3]])
				if v == "" {
					continue
				}
				ck.settings = append(ck.settings, setting{key, f.path, 1 + strings.Count(text[:m[2]], "\n"), v, strings.ContainsAny(v, "$%{") || re == celeryTZExpr || hclRef.MatchString(v)})
			}
		}
		add(settingWebsiteTZ, websiteTZ)
		add(settingPgCron, pgCronTZ)
		add(settingPgCron, pgCronTZParam)
		if strings.HasSuffix(strings.ToLower(f.path), ".py") {
			add(settingCeleryApp, celeryTZ)
			add(settingCelery, celeryEnvTZ)
			if strings.Contains(text, "celery") || strings.Contains(text, "beat_schedule") || strings.Contains(strings.ToLower(filepath.Base(f.path)), "celery") {
				add(settingCelery, celeryModTZ)
			}
			add(settingDjango, djangoTZ)
			add(settingCeleryApp, celeryTZExpr)
		}
	}
}

// settingFor returns the setting of key that applies to file: written in
// the file itself, else in the nearest directory at or above the file's.
// Two different values at that nearest place are ambiguous: ok is false
// and why says so.
func (ck *checker) settingFor(key, file string) (s setting, found bool, why string) {
	var own []setting
	for _, st := range ck.settings {
		if st.key == key && st.file == file {
			own = append(own, st)
		}
	}
	if len(own) > 0 {
		return oneSetting(own)
	}
	dir := filepath.Dir(file)
	for {
		var here []setting
		for _, st := range ck.settings {
			if st.key == key && filepath.Dir(st.file) == dir {
				here = append(here, st)
			}
		}
		if len(here) > 0 {
			return oneSetting(here)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return setting{}, false, ""
		}
		dir = parent
	}
}

func oneSetting(ss []setting) (setting, bool, string) {
	for _, s := range ss {
		if s.unresolved {
			return setting{}, false, fmt.Sprintf("%s is set to %s (%s:%d), an expression this check does not follow", s.key, s.value, s.file, s.line)
		}
	}
	for _, s := range ss[1:] {
		if s.value != ss[0].value {
			return setting{}, false, ss[0].key + " is set to " + quoteList(ss[0].value, s.value) + " beside it; which one applies is not clear"
		}
	}
	return ss[0], true, ""
}

func quoteList(a, b string) string { return `"` + a + `" and "` + b + `"` }
