#!/usr/bin/env bash
# Runs Kubernetes' own `[sig-apps] Deployment` end-to-end specs (the e2e.test that build.sh built
# from the control plane's release) against a cluster, in parallel through ginkgo, and prints each
# spec's outcome. The cluster is a new kube-bed (started here, stopped at the end) unless
# --kubeconfig names one that is already running (a test's bed, with Pacer started on it).
#
#   hack/e2e/run.sh                              # a new kube-bed, kube-controller-manager's Deployment controller on
#   hack/e2e/run.sh --no-deployment-controller   # a new kube-bed without any Deployment controller
#   hack/e2e/run.sh --kubeconfig FILE            # an existing cluster (an admin's kubeconfig)
#   options: --report-dir DIR (default: a new temporary directory), --procs N (default 4),
#            --focus REGEXP (default '\[sig-apps\] Deployment'); after --, flags for e2e.test
#
# DIR gets report.json (ginkgo's JSON report: one entry per spec with its state and failure) and
# junit.xml; the last lines printed are `<state>  <spec>` per spec, then `specs: N passed, ...`.
# Exits 0 whether or not specs fail (the caller compares the outcome with what it expects), 1 when
# the run itself could not be made, 3 when Go is missing to build the binaries.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

kubeconfig='' report_dir='' procs=4 bed_flags=() extra=()
focus='\[sig-apps\] Deployment'
# The one spec in the focus that cannot run here: it needs a cloud provider's load balancer (it
# skips itself unless --provider is aws, azure or gce).
skip="should not disrupt a cloud load-balancer's connectivity during rollout"
while [ $# -gt 0 ]; do
  case "$1" in
    --kubeconfig) kubeconfig=${2:?--kubeconfig needs a file}; shift 2 ;;
    --report-dir) report_dir=${2:?--report-dir needs a directory}; shift 2 ;;
    --procs) procs=${2:?--procs needs a number}; shift 2 ;;
    --focus) focus=${2:?--focus needs a regular expression}; shift 2 ;;
    --no-deployment-controller) bed_flags+=(--no-deployment-controller); shift ;;
    --) shift; extra=("$@"); break ;;
    *) echo "hack/e2e/run.sh: unknown argument \"$1\" (see the comment at the top for the usage)" >&2; exit 2 ;;
  esac
done
[[ $procs =~ ^[1-9][0-9]?$ ]] || { echo "hack/e2e/run.sh: --procs must be a number from 1 to 99, got \"$procs\"" >&2; exit 2; }
if [ -n "$kubeconfig" ] && [ ${#bed_flags[@]} -gt 0 ]; then
  echo "hack/e2e/run.sh: --no-deployment-controller starts a new kube-bed; it cannot be given with --kubeconfig" >&2
  exit 2
fi

e2e_bin=$("$here/build.sh")
kube_bin=$("$here/../kube/build.sh" all)
export PATH=$kube_bin:$PATH # the framework runs kubectl; the release's own
[ -n "$report_dir" ] || report_dir=$(mktemp -d "${TMPDIR:-/tmp}/pacer-upstream-e2e-XXXXXX")
mkdir -p "$report_dir"
report_dir=$(cd "$report_dir" && pwd)

bed_pid=''
cleanup() {
  if [ -n "$bed_pid" ]; then
    kill "$bed_pid" 2>/dev/null || true
    wait "$bed_pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT
if [ -z "$kubeconfig" ]; then
  bed_dir=$report_dir/bed
  rm -rf "$bed_dir"
  "$kube_bin/kube-bed" --dir "$bed_dir" --lifetime 1h "${bed_flags[@]}" >"$report_dir/kube-bed.out" 2>&1 &
  bed_pid=$!
  until grep -q '^kube-bed ready: ' "$report_dir/kube-bed.out" 2>/dev/null; do
    kill -0 "$bed_pid" 2>/dev/null || { echo "hack/e2e/run.sh: kube-bed exited before it was ready:" >&2; cat "$report_dir/kube-bed.out" >&2; exit 1; }
    sleep 0.5
  done
  kubeconfig=$bed_dir/admin.kubeconfig
fi

echo "running the specs matching $focus (skipping: $skip) with $procs processes; reports in $report_dir" >&2
start=$SECONDS
# --provider=skeleton: no cloud provider. The JSON report holds every spec's state; ginkgo's own
# exit code says only whether one failed, so it is not this script's.
"$e2e_bin/ginkgo" --procs="$procs" --focus="$focus" --skip="$skip" --no-color --timeout=60m \
  --output-dir="$report_dir" --json-report=report.json --junit-report=junit.xml \
  "$e2e_bin/e2e.test" -- \
  --kubeconfig="$kubeconfig" --provider=skeleton --kubectl-path="$kube_bin/kubectl" \
  --e2e-output-dir="$report_dir/e2e" "${extra[@]}" >"$report_dir/ginkgo.log" 2>&1 || true
echo "ran in $((SECONDS - start)) s (log: $report_dir/ginkgo.log)" >&2
[ -s "$report_dir/report.json" ] || { echo "hack/e2e/run.sh: ginkgo wrote no report; the end of its log:" >&2; tail -40 "$report_dir/ginkgo.log" >&2; exit 1; }

# One line per spec in the focus, then the counts. The report also lists every spec the focus left
# out (as skipped), and the suite's setup and teardown nodes: neither is printed.
node -e '
const suites = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
const focus = new RegExp(process.argv[2]);
const counts = {};
for (const suite of suites)
  for (const s of suite.SpecReports ?? []) {
    const name = [...(s.ContainerHierarchyTexts ?? []), s.LeafNodeText].join(" ");
    if (s.LeafNodeType !== "It" || !focus.test(name)) continue;
    counts[s.State] = (counts[s.State] ?? 0) + 1;
    console.log(`${s.State.padEnd(8)} ${name}`);
  }
console.log(`specs: ${Object.entries(counts).map(([k, v]) => `${v} ${k}`).join(", ")}`);
' "$report_dir/report.json" "$focus"
