#!/usr/bin/env bash
# Proves the README's set-up on a clean Debian 12 root: builds a minimal bookworm root with
# debootstrap, clones the committed HEAD of this repository into it, and runs the README's two
# commands there exactly as a new user would (as root, nothing else installed, no Recommends).
#
#   scripts/setup/clean_root_check.sh [--keep] [--mode demo|test|both] [ROOT_DIR]
#
# Needs root (it installs debootstrap with apt-get if missing) and about 6 GB of disk. Takes about
# 14-19 minutes on 2 cores (most of it the package download and the cold build); see
# docs/setup.md.
# The log of each command is ROOT_DIR/weft-setup-<mode>.log; the script exits non-zero if a
# command fails and prints which.
set -euo pipefail
usage() { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; }
keep=0
mode=both
root_dir=
while [ $# -gt 0 ]; do
  case "$1" in
    --keep) keep=1 ;;
    --mode) mode=${2:?--mode needs demo, test or both}; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "clean_root_check: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) root_dir=$1 ;;
  esac
  shift
done
case "$mode" in demo|test|both) ;; *) echo "clean_root_check: --mode must be demo, test or both" >&2; exit 2 ;; esac
[ "$(id -u)" -eq 0 ] || { echo "clean_root_check: must run as root (debootstrap, chroot, mount)" >&2; exit 1; }
if ! command -v debootstrap >/dev/null; then
  echo "clean_root_check: installing debootstrap (apt-get)"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap; } >/dev/null ||
    { echo "clean_root_check: could not install debootstrap with apt-get" >&2; exit 1; }
fi
repo=$(cd "$(dirname "$0")/../.." && pwd)
root_dir=${root_dir:-$(mktemp -d /tmp/weft-clean-root.XXXXXX)}

# The Debian mirror this machine itself uses (deb822 or one-line sources), else the default.
mirror=$(grep -hoE '^(URIs:|deb) +[a-z]+://[^ ]+/debian/?( |$)' /etc/apt/sources.list.d/*.sources \
           /etc/apt/sources.list 2>/dev/null | head -n 1 | awk '{print $2}' || true)
mirror=${mirror:-http://deb.debian.org/debian}

cleanup() {
  for m in "$root_dir/proc" "$root_dir/dev/pts" "$root_dir/dev"; do
    mountpoint -q "$m" 2>/dev/null && umount -l "$m"
  done
  if [ "$keep" -eq 0 ]; then rm -rf --one-file-system "$root_dir"; else echo "clean_root_check: kept $root_dir"; fi
}
trap cleanup EXIT

start=$(date +%s)
echo "clean_root_check: debootstrap bookworm (minbase) from $mirror into $root_dir"
debootstrap --variant=minbase bookworm "$root_dir" "$mirror" > "$root_dir.debootstrap.log" 2>&1 ||
  { echo "clean_root_check: debootstrap failed, see $root_dir.debootstrap.log" >&2; exit 1; }
rm -f "$root_dir.debootstrap.log"
mount -t proc proc "$root_dir/proc"
mount --bind /dev "$root_dir/dev"
mount --bind /dev/pts "$root_dir/dev/pts"
cp /etc/resolv.conf "$root_dir/etc/resolv.conf"
# The same suites as the host (bookworm, -updates, -security) so versions match a real machine.
cp /etc/apt/sources.list.d/debian.sources "$root_dir/etc/apt/sources.list.d/" 2>/dev/null || true
[ -f /etc/apt/sources.list ] && cp /etc/apt/sources.list "$root_dir/etc/apt/sources.list"
# Only what is committed: a fresh clone of HEAD, as a user gets it.
git clone -q "$repo" "$root_dir/root/weft"
echo "clean_root_check: cloned $(git -C "$repo" rev-parse --short HEAD) into the root ($(( $(date +%s) - start )) s so far)"

run_mode() {
  local m=$1 t0 rc
  t0=$(date +%s)
  echo "clean_root_check: ./scripts/quickstart.sh $m (log: $root_dir/weft-setup-$m.log)"
  set +e
  chroot "$root_dir" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb CI=true \
    /bin/bash -c "cd /root/weft && ./scripts/quickstart.sh $m" > "$root_dir/weft-setup-$m.log" 2>&1
  rc=$?
  set -e
  tail -n 5 "$root_dir/weft-setup-$m.log"
  echo "clean_root_check: quickstart.sh $m exited $rc after $(( $(date +%s) - t0 )) s"
  return $rc
}
status=0
if [ "$mode" = demo ] || [ "$mode" = both ]; then run_mode demo || status=1; fi
if [ "$mode" = test ] || [ "$mode" = both ]; then run_mode test || status=1; fi
# Keep the logs next to the root when the root itself is removed.
if [ "$keep" -eq 0 ]; then cp "$root_dir"/weft-setup-*.log /tmp/ 2>/dev/null && echo "clean_root_check: logs copied to /tmp/weft-setup-*.log"; fi
echo "clean_root_check: total $(( $(date +%s) - start )) s, $([ $status -eq 0 ] && echo PASSED || echo FAILED)"
exit $status
