#!/usr/bin/env bash
# Builds the two pinned zoneinfo trees the tzdiff goldens compare.
#
#   new/  America/Chicago, America/Mexico_City and Asia/Almaty as tzdata
#         2025b has them (new.zi: their Zone and Rule lines copied from
#         Debian's /usr/share/zoneinfo/tzdata.zi, version 2025b).
#   old/  the same source with two rules changed back (old.zi), replaying
#         two real changes at short notice:
#           - Mexico 2022: DST abolished after October 2022 (tzdata 2022f).
#             old.zi keeps the rule "first Sunday of April to the last
#             Sunday of October" running ("2002 ma" instead of "2002 2022").
#           - Kazakhstan 2024: Almaty moved from +06 to +05 on 2024-03-01
#             (tzdata 2024a). old.zi keeps +06.
#         Chicago is unchanged: a control.
#
# Needs zic (Debian: libc-bin) and tzdata 2025b's tzdata.zi. The TZif
# files are committed; run this only to rebuild them.
set -euo pipefail
cd "$(dirname "$0")"
src=${TZDATA_ZI:-/usr/share/zoneinfo/tzdata.zi}
head -1 "$src" | grep -qx '# version 2025b' || { echo "make.sh: $src is not tzdata 2025b" >&2; exit 1; }
zones="America/Chicago America/Mexico_City Asia/Almaty"
# A Zone block runs from its Z line to the next line that starts a new
# Z, R or L entry; rules are the R lines named by its lines' second field.
awk -v zones="$zones" '
	BEGIN { n = split(zones, zs, " "); for (i = 1; i <= n; i++) want[zs[i]] = 1 }
	/^[ZRL] / { inzone = 0 }
	/^Z / && ($2 in want) { inzone = 1 }
	inzone { print; rule = ($1 == "Z") ? $4 : $2; if (rule ~ /^[A-Za-z]/) rules[rule] = 1 }
	/^R / { rl[++nr] = $0; rn[nr] = $2 }
	END { for (i = 1; i <= nr; i++) if (rn[i] in rules) print rl[i] }
' "$src" > new.zi
sed -e 's/^R m 2002 2022 - Ap Su>=1 2 1 D$/R m 2002 ma - Ap Su>=1 2 1 D/' \
	-e 's/^R m 2002 2022 - O lastSu 2 0 S$/R m 2002 ma - O lastSu 2 0 S/' \
	-e '/^Z Asia\/Almaty/,/^[ZRL] /{/^6 - %z 2024 Mar$/{s/.*/6 - %z/;n;d}}' new.zi > old.zi
! cmp -s new.zi old.zi || { echo "make.sh: old.zi did not change" >&2; exit 1; }
rm -rf old new
zic -b slim -d new new.zi
zic -b slim -d old old.zi
diff new.zi old.zi || true
