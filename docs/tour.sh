#!/usr/bin/env bash
# Regenerates docs/tour.md, and the example outputs in README.md, from real runs of the current
# build, so that no figure in either can drift from what the code does.
#   bash docs/tour.sh [BUILD_DIR]      (default build/; needs workbench, wbload and refserver built)
# The simulated testbed (configs/sim.toml, fixed seeds) gives the same output on every run; the
# refserver section runs real trials (about a minute) and varies with the machine. Everything runs
# in a scratch folder; the shown paths are relative to it or to the checkout.
#
# The prose below is the template: text between the command blocks. A `{{name}}` in it is a figure
# read from an output (fig) or computed from them; one left unfilled stops the script.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
for program in controller/workbench workloads/wbload sut/refserver; do
  [ -x "$build/$program" ] || { echo "tour.sh: $build/$program is missing: build it first" >&2; exit 2; }
done
work=$(mktemp -d /tmp/wb-tour-XXXXXX)
trap 'rm -rf "$work"' EXIT
export PATH="$build/controller:$PATH"
mkdir -p "$work/saved" "$work/readme" "$work/configs"
started=$(date +%s)

die() { echo "tour.sh: $*" >&2; exit 1; }

# Output filters for cmd: every line, none, the first or last N, the lines matching an
# extended regex, or those not matching it (each run of lines left out shown as "...").
all() { cat; }
none() { cat >/dev/null; }
first() { awk -v n="$1" 'NR <= n { print } NR == n + 1 { print "..." }'; }
last() { awk -v n="$1" '{ line[NR] = $0 } END { if (NR > n) print "..."; for (i = (NR > n ? NR - n + 1 : 1); i <= NR; i++) print line[i] }'; }
matching() { awk -v re="$1" '$0 ~ re { print; gap = 0; next } !gap { print "..."; gap = 1 }'; }
except() { awk -v re="$1" '$0 !~ re { print; gap = 0; next } !gap { print "..."; gap = 1 }'; }

# cmd [-e FILTER] [-o FILTER] [-x CODE|any] [-s NAME] [-r BLOCK [-E FILTER] [-O FILTER]] -- WORD...
# Runs WORD... in the scratch folder and prints "$ WORD..." and then its stderr and its stdout,
# each through its filter (default: all). The exit code must be CODE (default 0). -s keeps the
# whole output for fig; -r appends the same display (with -E/-O as its filters) to README block
# BLOCK.
cmd() {
  local efilter=all ofilter=all expect=0 save="" block="" refilter="" rofilter=""
  while [ "$1" != "--" ]; do
    case "$1" in
      -e) efilter=$2 ;;
      -o) ofilter=$2 ;;
      -x) expect=$2 ;;
      -s) save=$2 ;;
      -r) block=$2 ;;
      -E) refilter=$2 ;;
      -O) rofilter=$2 ;;
      *) die "cmd: unknown option $1" ;;
    esac
    shift 2
  done
  shift
  local rc=0
  (cd "$work" && "$@") >"$work/out" 2>"$work/err" || rc=$?
  if [ "$expect" != any ] && [ "$rc" != "$expect" ]; then
    cat "$work/err" >&2
    die "'$*' exited with $rc, not $expect"
  fi
  for f in out err; do sed -i -e "s|$work/||g" -e "s|$root/||g" "$work/$f"; done
  [ -z "$save" ] || cat "$work/err" "$work/out" >"$work/saved/$save"
  echo "\$ $*"
  filter "$efilter" <"$work/err"
  filter "$ofilter" <"$work/out"
  if [ -n "$block" ]; then
    {
      echo "\$ $*"
      filter "${refilter:-$efilter}" <"$work/err"
      filter "${rofilter:-$ofilter}" <"$work/out"
    } >>"$work/readme/$block"
  fi
}
# filter "NAME [ARGUMENT]": one filter above, its argument taken whole (a regex may hold spaces).
filter() {
  local name=${1%% *}
  if [ "$name" = "$1" ]; then "$name"; else "$name" "${1#* }"; fi
}
begin() { echo '```console'; }
end() { printf '```\n\n'; }

# Figures for the prose: fig NAME SAVED REGEX sets {{NAME}} to the first capture of REGEX (sed -E)
# in the saved output SAVED.
declare -A figs
fig() {
  local v
  local re=$3
  if [ "${re:0:1}" = "^" ]; then re=${re:1}; else re=".*$re"; fi
  v=$(sed -nE "s|^$re.*|\1|p" "$work/saved/$2" | head -n 1)
  [ -n "$v" ] || die "figure $1: /$3/ not found in the output of $2"
  figs[$1]=$v
}
# where X "[LO, HI]": "inside" or "outside"
where() {
  awk -v x="$1" -v r="$2" 'BEGIN { gsub(/[][,]/, " ", r); split(r, b, " ");
    print (x + 0 >= b[1] + 0 && x + 0 <= b[2] + 0) ? "inside" : "outside" }'
}
# pct A B: (A - B) / B in percent, signed, one decimal
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f%%", (a - b) / b * 100 }'; }
# prose: the text on stdin, its {{figures}} filled in, then a blank line.
prose() {
  local text k
  text=$(cat)
  for k in "${!figs[@]}"; do text=${text//"{{$k}}"/"${figs[$k]}"}; done
  if [[ $text =~ \{\{[a-z0-9_]+\}\} ]]; then die "no figure for ${BASH_REMATCH[0]}"; fi
  printf '%s\n\n' "$text"
}

# The testbeds, as a user would have them: configs/ beside workloads/ (mix files are found relative
# to the config), the demo on a free port so that it cannot meet another refserver.
cp "$root/configs/sim.toml" "$work/configs/"
ln -s "$root/workloads" "$work/workloads"
free_port() {
  local p
  for _ in $(seq 50); do
    p=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
  die "no free TCP port found"
}
sed "s/^port = 7411$/port = $(free_port)/" "$root/configs/demo.toml" >"$work/configs/demo.toml"
grep -q "^port = 7411$" "$work/configs/demo.toml" && die "configs/demo.toml: port line not replaced"
# The probe example's hidden deviation: the simulated disks (the first service_ms = 15, in [sim])
# slow from 15 to 30 ms at four disks; [model] keeps 15 ms.
awk '!done && /^service_ms = 15$/ { print "service_ms = \"15 + 15 * max(0, min(1, {disks} - 3))\""; done = 1; next }
     { print }' "$root/configs/sim.toml" >"$work/sim-slow.toml"
# A region of the 90th percentile.
sed 's/^width = 0.10 .*/&\npercentile = 0.9\nl_sat_ms = 80/' "$root/configs/sim.toml" >"$work/p90.toml"
# Bad input: the [peak] section without its required r_sat_ms.
grep -v '^r_sat_ms' "$root/configs/sim.toml" >"$work/broken.toml"

commit=$(git -C "$root" rev-parse --short HEAD)
# Only the code counts: documents may change without changing what the runs show.
git -C "$root" diff --quiet HEAD -- . ':!docs' ':!*.md' || commit="$commit plus uncommitted changes"

{
prose <<EOF
# A tour of workbench

<!-- Generated by docs/tour.sh from runs of the tree at $commit; edit the script, not this file. -->
Every output below comes from a run of the current code by \`bash docs/tour.sh\`, which rewrites
this file. Commands run in a scratch folder that holds \`configs/\` (a copy of the repository's),
so paths are relative to it.
EOF

prose <<'EOF'
## `workbench peak` on the simulated testbed

`configs/sim.toml` simulates an NFS-like server: a pool of nfsd threads (factor `threads`), two
CPUs and `disks` disks. A request holds its thread while it queues for and uses a disk, so more
disks help only with enough threads. Trials run on a virtual clock: a search that would cost an
hour of benchmarking takes well under a second, and the same seed gives the same trials.
`workbench sim truth` simulates long enough to know where the true peak-rate region lies.
EOF
begin
cmd -s p1 -r peak -- workbench peak --config configs/sim.toml --set disks=2,threads=16 --target 95/90
cmd -s t1 -- workbench sim truth --config configs/sim.toml --set disks=2,threads=16
end
fig p1 p1 'peak rate λ\* = ([0-9.]+) requests/s'
fig p1_trials p1 'in ([0-9]+) trials$'
fig p1_hours p1 'benchmarking time \(([0-9.]+) h\)'
fig t1_region t1 'peak-rate region: (\[[0-9., ]+\])'
figs[p1_where]=$(where "${figs[p1]}" "${figs[t1_region]}")
prose <<'EOF'
Binsearch doubles the load until one saturates (its CI lies wholly above the peak-rate region
[R_sat(1−s), R_sat(1+s)], or the achieved throughput falls short of the offered rate), then
bisects the bracket. Each load gets at least two trials; a load whose CI overlaps the region gets
more, until the CI is accurate enough and shown to lie inside the region (see "Statistics"
below). The claim, {{p1}}/s after {{p1_trials}} trials ({{p1_hours}} h of simulated benchmarking
time), lies {{p1_where}} the true region {{t1_region}}/s. "Loads that could be the peak" is what
the evidence does not rule out: it is bounded by loads whose CI lies wholly outside the region, and
narrowed by the response curve fitted through the loads.

`--json` prints the same as one object (`search_id, sample, target, policy, status, peak_rate,
response, loads, trials, cost_s`); the exit code is 0 when the peak was found and 1 otherwise
(`status`: `not-found`, `budget`, `failed`). On a terminal a progress line on stderr shows the
sample, load, trial, elapsed and expected seconds and the cost so far; `--verbose` logs every
stored trial instead. Every trial is in the store (here `configs/sim.db`, beside the config) the
moment it ends. Ctrl-C, SIGHUP and SIGTERM stop the server and the generator and exit with 130;
interrupted or killed (even by `kill -9`), the same command resumes the search from its stored
trials and ends with the result an uninterrupted run gives. One controller owns each search,
surface point and probe through a lease with a heartbeat in the store: a second `peak` of the same
search waits for the first and reports its result, and a lease is taken over once its owner's pid
is gone on this host, or after `[testbed] lease_timeout_s` without a heartbeat from another host.

Other pickers: `--policy linear|strawman|binsearch|model|model-safe` (`workbench peak --help`
says what each does; `bench/policies` measures what each costs).
EOF

prose <<'EOF'
## Seeding

With `--seeding`, the search starts from the λ* of the nearest sample already measured (search #1
above), from the centre of that sample's region, scaled by the expectation model's ratio of the two
samples (`[model]` in the config). With no earlier search it starts at the model's λ*.
EOF
begin
cmd -e 'first 3' -s p2 -- workbench peak --config configs/sim.toml --set disks=1,threads=16 --seeding --verbose
cmd -s t2 -- workbench sim truth --config configs/sim.toml --set disks=1,threads=16
end
fig seed2 p2 '^seed ([0-9.]+)/s'
fig p2 p2 'peak rate λ\* = ([0-9.]+) requests/s'
fig t2_region t2 'peak-rate region: (\[[0-9., ]+\])'
figs[seed2_where]=$(where "${figs[seed2]}" "${figs[t2_region]}")
figs[p2_loads]=$(grep -cE '^ +[0-9.]+ +[0-9]+ +[0-9.]+ s ' "$work/saved/p2")
prose <<'EOF'
The seed, {{seed2}}/s, lies {{seed2_where}} the true region {{t2_region}}/s; the search measured
{{p2_loads}} load(s).
EOF
if [ "${figs[p2_loads]}" = 1 ]; then
  prose <<'EOF'
With a single load the evidence rules out no load as the peak (`[0.0, unbounded]`): that needs
loads judged on both sides, or a curve fitted through two or more.
EOF
fi
prose <<'EOF'
`--policy model-safe` (not in the paper) fits the response curve to every load measured so far
and keeps binsearch's bracket, bisecting whenever the fit does not shrink it. Seeded, it also takes
the neighbours' elasticity (d ln R / d ln λ at their peaks) as a prior on the curve's slope, so that
when the seed is not claimed it aims the next load from that one load alone, where binsearch
doubles or halves. In the same store, and next to binsearch from the same seed (a copy of the store
taken before):
EOF
cp "$work/configs/sim.db" "$work/binsearch.db"
[ ! -f "$work/configs/sim.db-wal" ] || cp "$work/configs/sim.db-wal" "$work/binsearch.db-wal"
begin
cmd -s p3 -- workbench peak --config configs/sim.toml --set disks=3,threads=16 --policy model-safe --seeding
cmd -s t3 -- workbench sim truth --config configs/sim.toml --set disks=3,threads=16
cmd -o 'matching ^(peak|cost)' -s p3b -- workbench peak --config configs/sim.toml --store binsearch.db --set disks=3,threads=16 --seeding
end
fig p3_trials p3 'in ([0-9]+) trials$'
fig p3b_trials p3b 'in ([0-9]+) trials$'
fig p3 p3 'peak rate λ\* = ([0-9.]+) requests/s'
fig p3b p3b 'peak rate λ\* = ([0-9.]+) requests/s'
fig t3_region t3 'peak-rate region: (\[[0-9., ]+\])'
figs[p3_where]=$(where "${figs[p3]}" "${figs[t3_region]}")
figs[p3b_where]=$(where "${figs[p3b]}" "${figs[t3_region]}")
prose <<'EOF'
Here model-safe claimed {{p3}}/s ({{p3_where}} the true region) in {{p3_trials}} trials, binsearch
{{p3b}}/s ({{p3b_where}}) in {{p3b_trials}}. One sample says little: over the 32 samples of
`configs/sim.toml` and many seeds, `bench/policies` measures what seeding and each picker cost on
average (`bench/policies/RESULTS.txt`).

## A percentile region

`[peak] percentile` (0.5, 0.9, 0.95 or 0.99, the percentiles every trial reports) with `l_sat_ms`
makes the peak-rate region one of that percentile of the response time instead of the mean:
EOF
begin
cmd -x 1 -- diff configs/sim.toml p90.toml
cmd -s p90 -- workbench peak --config p90.toml --store p90.db --set disks=2,threads=16
cmd -s t90 -- workbench sim truth --config p90.toml --store p90.db --set disks=2,threads=16
end
fig p90 p90 'peak rate λ\* = ([0-9.]+) requests/s'
fig t90_region t90 'peak-rate region: (\[[0-9., ]+\])'
figs[p90_where]=$(where "${figs[p90]}" "${figs[t90_region]}")
prose <<'EOF'
Each load's CI is then over its trials' 90th percentiles, and `sim truth` finds the loads at which
the true p90 crosses the region's edges: the claim, {{p90}}/s, lies {{p90_where}} the true region
{{t90_region}}/s. The loads that could be the peak are bounded by the evidence alone here: the
response curve that narrows them for the mean has no counterpart for a percentile. (The search
runs in a store of its own, `p90.db`, apart from the mean-response searches.)
EOF

prose <<'EOF'
## `workbench map-surface`

A response surface: λ* over the grid of two factors (4 disk counts × 8 thread counts here),
measured at a D-optimal subset of the grid and fitted by the class of surface the data choose. Here
in a store of its own:
EOF
begin
cmd -e 'first 4' -s ms -r map-surface -E none -O 'except ^(coefficients|  [^ ])' -- workbench map-surface --config configs/sim.toml --store surface.db --factors disks,threads --design dopt --points 8 --seeding
end
prose <<'EOF'
The 8 samples are a D-optimal design (Fedorov exchange, threads log-coded) visited as a
nearest-neighbour tour, so that each search can start from the centre of a neighbour's region,
scaled by the expectation model's ratio of the two samples; the first starts at the model's λ*.
By default (`--model auto`) every candidate class is fitted and ranked by its leave-one-out MAPE
(the mean error of refits without each point), inflated for the terms it spends: polynomials of
the coded factors, 1/λ* over 1/disks and 1/threads (λ* is bounded by servers / demand of the
bottleneck pool, so it levels off), and — since this config has a `[model]` — classes that fit
only the deviation from the expectation. Here the expectation is right, so a constant deviation
wins; `bench/surface` compares the classes against the true λ* of all 32 samples. `--target-error
PCT` adds D-optimal samples until the cross-validated error is at most PCT. Killed at any moment,
the same command continues where it stopped without running a finished trial again, and on a
finished surface it reports without measuring; `--parallel K` keeps K testbed slots busy
(`[[slots]]` in a real testbed's config), and two `map-surface` runs of one surface share its points.

`workbench report` lists the searches of a store with the expectation stored with each:
EOF
begin
cmd -r report -O "first 5" -- workbench report --config configs/sim.toml --store surface.db
end

prose <<'EOF'
## Mismatches, probes and the agent

After every search, workbench compares the measured λ* with the expectation model's. When the
expectation lies outside the loads that could be the peak and is off by more than the tolerance
(`[probing]`, 15% by default), that is a mismatch: workbench ranks the attributes of the Z-CART
tree by information gain over the stored searches and plans probes, samples that vary the factors
behind the top-ranked attributes around the mismatch point, each with a priority and a not-before
time. The attributes are the factors, workload attributes (`[model.attributes]`, and the fractions
and request size of a `[workload]` mix file) and metrics of the expectation model (`expected_peak`,
`bottleneck`, `bottleneck_util`, tokens per server of a pool, such as `nfsd_per_disk`, and the rate
at which each center whose capacity a factor sets saturates, such as `disk_lambda_max`). All are
known for a sample nobody measured.

`workbench agent --once` (cron-friendly) runs the due probes, adds each to the Z-CART tree (an
incremental add that gives the same tree as a refit), closes a mismatch once the tree predicts it
and reopens one a later tree gets wrong again. Where the tree splits on a factor with levels left
between the two sides, it plans a probe at the middle one, until the boundary lies between
adjacent levels. A lease in the store keeps two agents off one probe, a killed agent's probe runs again, and
`workbench probe cancel` stops a running probe through its agent.

`sim-slow.toml` is `configs/sim.toml` whose simulated disks slow from 15 to 30 ms at four disks, in
`[sim]` only, so that the expectation model does not know:
EOF
begin
cmd -x 1 -- diff configs/sim.toml sim-slow.toml
cmd -e 'matching ^(surface|mismatch|slot 0: measuring disks=4)' -r probes -E 'matching ^mismatch' -O none -- workbench map-surface --config sim-slow.toml --factors disks,threads --points 8
cmd -r probes -O 'except ^mismatch' -- workbench probe list --config sim-slow.toml
cmd -s agent -r probes -E 'last 1' -- workbench agent --config sim-slow.toml --once
cmd -s w4 -r probes -- workbench whatif --config sim-slow.toml --set disks=4,threads=16
cmd -s t4 -r probes -- workbench sim truth --config sim-slow.toml --set disks=4,threads=16
end
fig w4_exp w4 'expectation +λ\* = ([0-9.]+) requests/s'
fig w4_zc w4 'zcart +λ\* = ([0-9.]+) requests/s'
fig w4_leaf w4 'leaf (.*) with [0-9]+ measured'
fig t4 t4 'λ\* = ([0-9.]+)/s'
figs[w4_zc_err]=$(pct "${figs[w4_zc]}" "${figs[t4]}")
figs[w4_exp_err]=$(pct "${figs[w4_exp]}" "${figs[t4]}")
prose <<'EOF'
A probe can vary only factors, so the probes vary the top-ranked factors first. From the probes the
tree learned the leaf `{{w4_leaf}}`: at the unmeasured sample disks=4,threads=16 its answer is
{{w4_zc}}/s against a true {{t4}}/s ({{w4_zc_err}}), where the expectation says {{w4_exp}}/s
({{w4_exp_err}}). `workbench probe list|run|cancel` manage probes by hand; `workbench model show`
prints the stored tree.

`--clients N --think Z` asks the model about a closed workload instead: N clients, each thinking
Z ms between requests. A thread pool stays in the answer (a flow-equivalent server over the centers
it holds, solved by load-dependent MVA; `models/closed_network.hpp` says where that is exact):
EOF
begin
cmd -- workbench whatif --config configs/sim.toml --set disks=2,threads=1 --metric throughput --clients 50 --think 0
end

prose <<'EOF'
## The refserver testbed

`configs/demo.toml` starts `refserver`, a real TCP server whose worker threads hold their thread
while they use an emulated CPU and queue for one of `disks` emulated disks, and drives it with
`wbload`, an open-loop load generator, on this machine. Its factors are of all three kinds: the
workload mix (W), the CPUs the server may use (R, via `taskset`), threads and disks (C).
`bash dev/setup.sh demo` runs `workbench peak --config configs/demo.toml --target 95/90` on it: the
shape of the simulated search above, in real time — one to two minutes on an idle 2-core machine,
more on a busy one (`bench/real/RESULTS.txt`).
EOF
begin
cmd -x any -s demo -r demo -- workbench peak --config configs/demo.toml --target 95/90
end
fig demo_cost demo '^cost: ([0-9]+) s of benchmarking'
fig demo_trials demo 'in ([0-9]+) trials$'
prose <<'EOF'
This run, as the tour made it, took {{demo_cost}} s of benchmarking in {{demo_trials}} trials. The
commands below run real trials too; their figures vary with the machine's load.
EOF
begin
cmd -- workbench hosts check --config configs/demo.toml
end
prose <<'EOF'
`[model]` in `configs/demo.toml` describes refserver as a queue network: a pool of `{threads}`
workers, a CPU delay, `{disks}` FCFS disks, and a `net` delay for what a request spends outside
refserver. `workbench model calibrate` runs one low-load trial and replaces the configured demands
with measured ones: by default (`--method stages`) refserver's per-stage times for cpu and disk,
and for net what wbload saw beyond refserver's own residence time. A calibration applies wherever
the sample agrees on the factors a demand depends on (the disk time measured under `mix=db_tp`
serves every threads/disks setting of db_tp).
EOF
begin
cmd -s cal1 -- workbench model calibrate --config configs/demo.toml
cmd -- workbench whatif --config configs/demo.toml --set threads=16,disks=4 --explain
end
prose <<'EOF'
The peak-rate region is what a search may claim: any load whose mean response lies within
R_sat ± s. Where R(λ) is steep (four disks) the region is narrow; where it is flat (one disk) it
spans more than ±10%, so one search cannot pin λ* to 10% there. `bench/whatif/run.sh` compares
whatif with searches at settings nobody measured (`bench/whatif/RESULTS.txt`).

`workbench trial` runs fixed-rate trials and checks their mean against the model's R(λ). When the
bundled refserver serves them, it also compares each center's time with refserver's stage times.
Outside tolerance the run is recorded as a mismatch, probes are planned as after a search, and the
exit code is 1.
EOF
begin
cmd -x any -- workbench trial --config configs/demo.toml --set threads=16,disks=4 --rate 400 --trials 3 --runlength 3
end
prose <<'EOF'
`model calibrate --method utilization` measures the disk by the service demand law instead:
D = U/X, with U the disks' busy time over the trial's stats interval and X the requests refserver
completed in it; the visits per request follow from the forced flow law. cpu and net keep their
earlier calibration. `model show` lists each demand with its source:
EOF
begin
cmd -s cal2 -- workbench model calibrate --config configs/demo.toml --method utilization
cmd -- workbench model show --config configs/demo.toml
end
fig disk1 cal1 '^  disk +([0-9.]+) ms per visit'
fig disk2 cal2 '^  disk +([0-9.]+) ms per visit'
prose <<'EOF'
The two methods measured {{disk1}} ms (stage times) and {{disk2}} ms (D = U/X) per disk visit,
where the config expects 4.86 ms (`{disk_ms}` of db_tp, in `model show` above).

## Hosts over SSH

`configs/demo-ssh.toml` is the demo with both programs on a host reached over SSH (libssh: one
session per host reused for every command, the host key checked against known_hosts, strict unless
the config says `host_key = "accept-new"`, key or agent authentication). workbench uploads `wbload`
and `refserver` by SFTP when the remote copy is missing or its `--version` differs, runs every
remote command as its own process group, and kills the group at a deadline, on Ctrl-C and after a
dropped connection. While one command runs, the next one's channel and shell are started
(`shell_ahead`); `bench/ssh` measures what that saves (`bench/ssh/RESULTS.txt`). `hosts check`
exits 1 when a host cannot be used and says what to do: an unknown or changed host key (with the
`ssh-keyscan` line to run), a key the server refuses, a local program that does not run.
`configs/nginx.toml` benchmarks nginx with `worker_processes` as a factor. A server's own config
file is a `[[sut.files]]` template (`template`, relative to the config's folder, and `path`, where
it is written on the SUT's host before each start): `{port}`, `{sut_address}`, `{config_dir}` and
the factors are filled in, a name in doubled braces stands for itself in single ones, and every other brace (nginx's
blocks, `${var}`) is left alone, so `[sut] port` reaches every file the server reads. nginx, like
many servers, saturates with a step rather than a curve: where the response jumps from below the
peak-rate region to far above it between two loads closer than a quarter of the accuracy's
tolerance, the search ends with status `cliff` and λ* at the knee, the last load below the step
(`bench/real/nginx_peak.sh` compares it with the highest rate wbload sustains). A server that over a
band of loads either keeps up or falls into a queue, trial by trial, ends with status `bistable`:
λ* is the highest load below every stall, and the interval reaches to the highest load that still
kept up (docs/decisions.md#bistable).

`[sut] ready` says how workbench knows the server is up after each start, within
`ready_timeout_s`: `"line"` (its stdout prints a line starting with `ready`, as refserver does),
`"tcp"` (the port accepts a connection), or `"command"` with `ready_command`, run on the SUT's host
until it exits 0 (for example `pg_isready -p {port}`). With several generator hosts, each runs
wbload with its share of λ and their latency histograms are merged exactly into one trial. A trial
has two deadlines: the server must be ready within `ready_timeout_s`, and each wbload must finish
within its warm-up + runlength + `timeout_s` + `[workload] deadline_slack_s`; past either, the
trial fails with an error that names the deadline, and what it started is killed.

Nothing outlives the controller, however it ends: each process workbench starts here has a guard
that kills its process group once workbench is gone, and each one started over SSH ends when its
channel closes. Every started group is also recorded in the store while it runs, and every command
that runs trials first kills what a dead controller left on the testbed (only a group whose leader
still has the recorded start time, so a reused pid is never touched) and says so on stderr.

## Bad input

Bad input is one line naming what and where, exit code 2, and the store is not touched:
EOF
begin
cmd -x 2 -- workbench peak --config configs/sim.toml --set disks=9
cmd -x 2 -- workbench peak --config broken.toml
end
prose <<'EOF'
(`broken.toml` is `configs/sim.toml` without its `r_sat_ms` line.) Every number is checked where
it enters: in a config, NaN, ±inf, a whole number beyond its type and a value no trial can run (the
ceilings are in `core/trial_limits.hpp`, shared with wbload's flags) are refused with
`FILE:LINE:KEY`; so is a factor level that a use needs to be a whole number, and the refserver
command line of `[sut] start` is parsed by refserver's own option parser for every sample.

A generator's result is checked before it becomes a trial (`check_result` in
`workloads/result.hpp`): counts that cannot add up, a negative or non-finite latency sum, a mean
outside [min, max], rates or a duration other than those asked for, a latency beyond the timeout.
Such a trial fails with one line naming the host and the field, and is not stored. To run a
generator build of your own in place of the bundled one, set `WB_BIN_DIR` to a folder holding
`wbload` and `refserver`.

## Statistics

Confidence intervals are over the trials' mean response times: the log-normal (modified Cox)
interval, with Student-t quantiles from Boost.Math (normal beyond 30 trials), which is skewed like
response times and never reaches below zero; accuracy = 1 − half-width/mean. Algorithm 2 as the paper writes it checks the CI
after every trial and stops once it is accurate enough: optional stopping, after which the CI
covers the true mean less often than its confidence says. workbench therefore examines a claim
only at trial counts fixed in advance (from `peak_min_trials` = 3 growing by `look_growth` = 1.5
up to `max_trials`: 3, 5, 8, 12, 18, 27 by default), at confidence 1 − (1−c)/K
for the K scheduled looks, so by the union bound the claim holds with probability ≥ c whatever the
stopping rule.

The paper also claims a load as soon as an accurate CI merely overlaps the region, so a load whose
mean lies just outside it is claimed too. workbench claims only when the interval at confidence
1 − 2(1−c)/K lies inside the region (two one-sided tests), so a load whose true response time is
outside the region is claimed with probability at most 1 − c. A load that cannot be claimed is
decided by its mean and the search moves on; such a load steers the search, but only a load whose
CI lies wholly outside the region bounds the reported interval of loads that could be the peak.
`[peak] sequential = "none"` restores the paper's rule. `judge_load` in `policies/load_verdict.cpp` is
the rule; `bench/policies` measures its coverage (`bench/policies/RESULTS.txt`).
EOF
} >"$work/tour.md"

# README.md: each block between "<!-- tour:NAME -->" and "<!-- /tour -->" becomes the commands and
# outputs marked -r NAME above.
awk -v dir="$work/readme" '
  /^<!-- tour:[a-z-]+ -->$/ {
    print; name = $2; sub(/^tour:/, "", name); f = dir "/" name
    if ((getline line < f) <= 0) { print "tour.sh: README.md: no block " name > "/dev/stderr"; bad = 1; exit }
    print "```console"; print line
    while ((getline line < f) > 0) print line
    close(f); print "```"; skip = 1; used[name] = 1; next
  }
  /^<!-- \/tour -->$/ { skip = 0 }
  !skip { print }
  END { if (bad) exit 1 }' "$root/README.md" >"$work/README.md"
for f in "$work"/readme/*; do
  grep -q "^<!-- tour:$(basename "$f") -->$" "$work/README.md" || die "README.md has no block $(basename "$f")"
done
cp "$work/tour.md" "$root/docs/tour.md"
cp "$work/README.md" "$root/README.md"
echo "tour.sh: wrote docs/tour.md ($(wc -l <"$root/docs/tour.md") lines) and README.md's examples in $(($(date +%s) - started)) s" >&2
