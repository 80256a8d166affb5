#!/usr/bin/env bash
# Commit the day's archive files (data/) and push them to main without ever losing the day.
#
#   scripts/commit-day.sh [--message M] [--body-file F]            commit data/, then push
#   scripts/commit-day.sh --from-bundle FILE [--verify-cmd CMD]     replay a kept day onto main, then push
#
# The collect job runs for up to 5 hours; anyone may push to main meanwhile (a developer, a dependency
# bot). A rejected push is retried: fetch the remote branch, rebase the day's commit(s) onto it, push
# again, a bounded number of times with a doubling delay. The archive is append-only (new files, lines
# appended to data/runs.jsonl and data/chain.jsonl), so the rebase over code commits is clean. If the
# rebase conflicts (someone else changed the same data files) or every attempt fails, the rebase is
# aborted, nothing is forced, and the day's commit(s) are written as a git bundle into the bundle
# directory (the workflow uploads it as an artifact); the script says how to recover and exits 1.
# `--from-bundle` is that recovery: it replays the bundle's commit(s) onto the current remote branch
# (cherry-pick; a commit already there is skipped), runs --verify-cmd if given, and pushes with the
# same retry. No collection is repeated. Never --force.
#
# Options (environment variable in brackets; a flag wins):
#   --message M       commit subject [COMMIT_DAY_MESSAGE]; default "data: observations for <UTC day>"
#   --body-file F     commit body read from F when it exists (the collect summary) [COMMIT_DAY_BODY_FILE]
#   --remote R        [COMMIT_DAY_REMOTE] default origin
#   --branch B        [COMMIT_DAY_BRANCH] default main
#   --attempts N      pushes tried in all, N >= 1 [COMMIT_DAY_ATTEMPTS] default 5
#   --delay S         seconds before the first retry, doubled each time [COMMIT_DAY_DELAY] default 5
#                     (5 attempts: 5 + 10 + 20 + 40 s of waiting at most)
#   --bundle-dir D    where the fallback bundle is written [COMMIT_DAY_BUNDLE_DIR] default ./commit-day-bundle
#   --verify-cmd CMD  run by bash after the commit or replay, before the first push; failing stops the
#                     push [COMMIT_DAY_VERIFY]
#   --from-bundle F   recovery mode (see above)
#   --exclude P       a folder under data/ not to commit, repeatable [COMMIT_DAY_EXCLUDE, space-separated]:
#                     with an object store (MCP_SCHEMA_STORE) data/objects and data/pages are only a
#                     cache of the bucket, which already holds every key the run wrote
# The artifact's name, for the recovery commands printed on failure: COMMIT_DAY_ARTIFACT.
#
# Exit: 0 pushed, or nothing to push; 1 not pushed (a bundle kept, or a recovery that could not be
# replayed, verified or pushed); 2 bad usage or a repository in no state to start.
set -euo pipefail

me=commit-day
say() { printf '%s: %s\n' "$me" "$*"; }
die() { local code=$1; shift; printf '%s: %s\n' "$me" "$*" >&2; exit "$code"; }
usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p;}' "$0"; }
abs() { case $1 in /*) printf '%s' "$1" ;; *) printf '%s' "$PWD/$1" ;; esac; }

message=${COMMIT_DAY_MESSAGE:-}
body_file=${COMMIT_DAY_BODY_FILE:-}
remote=${COMMIT_DAY_REMOTE:-origin}
branch=${COMMIT_DAY_BRANCH:-main}
attempts=${COMMIT_DAY_ATTEMPTS:-5}
delay=${COMMIT_DAY_DELAY:-5}
bundle_dir=${COMMIT_DAY_BUNDLE_DIR:-commit-day-bundle}
verify_cmd=${COMMIT_DAY_VERIFY:-}
artifact=${COMMIT_DAY_ARTIFACT:-}
from_bundle=
read -r -a excludes <<<"${COMMIT_DAY_EXCLUDE:-}"

while [ $# -gt 0 ]; do
  case $1 in
    -h | --help) usage; exit 0 ;;
    --message | --body-file | --remote | --branch | --attempts | --delay | --bundle-dir | --verify-cmd | --from-bundle | --exclude)
      [ $# -ge 2 ] || die 2 "$1 needs a value (--help)"
      case $1 in
        --message) message=$2 ;;
        --body-file) body_file=$2 ;;
        --remote) remote=$2 ;;
        --branch) branch=$2 ;;
        --attempts) attempts=$2 ;;
        --delay) delay=$2 ;;
        --bundle-dir) bundle_dir=$2 ;;
        --verify-cmd) verify_cmd=$2 ;;
        --from-bundle) from_bundle=$2 ;;
        --exclude) excludes+=("${2%/}") ;;
      esac
      shift 2 ;;
    *) die 2 "unknown argument: $1 (--help)" ;;
  esac
done

[[ $attempts =~ ^[1-9][0-9]*$ ]] || die 2 "--attempts must be a whole number >= 1, not '$attempts'"
[[ $delay =~ ^[0-9]+$ ]] || die 2 "--delay must be a whole number of seconds, not '$delay'"
# Paths given relative to where the script was started, before moving to the repository's root.
bundle_dir=$(abs "$bundle_dir")
[ -z "$body_file" ] || body_file=$(abs "$body_file")
[ -z "$from_bundle" ] || from_bundle=$(abs "$from_bundle")
top=$(git rev-parse --show-toplevel 2>/dev/null) || die 2 "not inside a git work tree: $PWD"
cd "$top"

tracking="refs/remotes/$remote/$branch"
day=$(date -u +%F)

fetch_remote() { git fetch --no-tags -q "$remote" "+refs/heads/$branch:$tracking"; }

# A banner no log reader can miss; on GitHub Actions also an error annotation on the run's summary.
loud() {
  local title=$1; shift
  {
    echo
    echo "=================================================================================="
    echo "$me: $title"
    echo "=================================================================================="
    printf '%s\n' "$@"
    echo "=================================================================================="
  } >&2
  if [ "${GITHUB_ACTIONS:-}" = true ]; then echo "::error title=$me::$title"; fi
}

run_verify() {
  [ -n "$verify_cmd" ] || return 0
  say "verifying before the push: $verify_cmd"
  bash -c "$verify_cmd"
}

# Push HEAD to the remote branch. On a failed push: wait (delay, doubled each time), fetch, rebase the
# local commits onto the remote branch, try again. Returns 0 pushed, 1 every attempt failed,
# 2 the rebase conflicted (aborted: HEAD is as it was before that rebase).
push_with_retry() {
  local attempt=1 wait=$delay
  while :; do
    if git push "$remote" "HEAD:refs/heads/$branch"; then
      say "pushed $(git rev-parse --short HEAD) to $remote/$branch (attempt $attempt of $attempts)"
      return 0
    fi
    if [ "$attempt" -ge "$attempts" ]; then
      say "push failed $attempts times"
      return 1
    fi
    say "push refused (attempt $attempt of $attempts); fetching $remote/$branch and rebasing onto it in ${wait}s"
    sleep "$wait"
    wait=$((wait * 2))
    attempt=$((attempt + 1))
    if ! fetch_remote; then
      say "could not fetch $remote/$branch; trying the push again anyway"
      continue
    fi
    if ! out=$(git rebase -q "$tracking" 2>&1); then
      git rebase --abort >/dev/null 2>&1 || true
      # git's own advice (resolve, --continue) does not apply: the rebase is aborted, never forced.
      printf '%s\n' "$out" | grep -E '^(CONFLICT|error: cannot|fatal)' >&2 || true
      say "the rebase onto $remote/$branch conflicts: someone else changed the same files; rebase aborted"
      return 2
    fi
  done
}

# ---------------------------------------------------------------------------------------------------
# Recovery: replay a kept day onto the current remote branch and push it.
# ---------------------------------------------------------------------------------------------------
if [ -n "$from_bundle" ]; then
  [ -f "$from_bundle" ] || die 2 "no bundle at $from_bundle"
  git diff --quiet && git diff --cached --quiet ||
    die 2 "the work tree has uncommitted changes to tracked files: recover from a clean clone of $branch"
  fetch_remote || die 1 "could not fetch $remote/$branch"
  [ -z "$(git rev-list -n 1 "$tracking..HEAD")" ] ||
    die 2 "HEAD has commits that are not on $remote/$branch: recover from a clean clone of $branch"

  # The bundle holds the day's commits only; it names their parents ("prerequisites", the header's
  # "-<id>" lines), which must be here before git reads it. A shallow clone (the workflow's) lacks
  # older commits: fetch just those parents.
  mapfile -t prereqs < <(sed -n '/^$/q; s/^-\([0-9a-f]\{40,64\}\).*/\1/p' "$from_bundle")
  shallow=$(git rev-parse --is-shallow-repository)
  for p in "${prereqs[@]}"; do
    git cat-file -e "$p^{commit}" 2>/dev/null && continue
    if [ "$shallow" = true ]; then
      git fetch --no-tags -q --depth=1 "$remote" "$p"
    else
      git fetch --no-tags -q "$remote" "$p"
    fi
  done
  git bundle verify -q "$from_bundle" >/dev/null || die 1 "$from_bundle is not a bundle this repository can read"
  read -r tip head_ref < <(git bundle list-heads "$from_bundle") || die 1 "$from_bundle names no commit"
  git fetch --no-tags -q "$from_bundle" "+$head_ref:refs/commit-day/recovered"
  tip=$(git rev-parse "refs/commit-day/recovered^{commit}")
  # The day's commits: in the bundle, not among its parents, not on the remote branch already.
  mapfile -t commits < <(git rev-list --reverse --topo-order "$tip" --not "${prereqs[@]}" "$tracking")
  say "replaying ${#commits[@]} commit(s) from $(basename "$from_bundle") onto $remote/$branch"

  git merge -q --ff-only "$tracking"
  for c in "${commits[@]}"; do
    if git cherry-pick "$c" >/dev/null 2>&1; then
      say "replayed $(git log -1 --format='%h %s' "$c")"
    elif [ -z "$(git ls-files -u)" ] && git diff --cached --quiet; then
      # Nothing left to apply: this commit's changes are already on the branch (a second recovery).
      git cherry-pick --skip
      say "already on $remote/$branch: $(git log -1 --format='%h %s' "$c")"
    else
      conflicted=$(git diff --name-only --diff-filter=U | sed 's/^/    /')
      git cherry-pick --abort
      loud "THE KEPT DAY DOES NOT APPLY to $remote/$branch: nothing was pushed." \
        "Replaying $(git log -1 --format='%h %s' "$c") conflicts in:" "$conflicted" \
        "Someone changed the same data files. Resolve that on $branch first, then run again:" \
        "  scripts/commit-day.sh --from-bundle $from_bundle${verify_cmd:+ --verify-cmd '$verify_cmd'}" \
        "The bundle is unchanged."
      exit 1
    fi
  done
  if [ "$(git rev-parse HEAD)" = "$(git rev-parse "$tracking")" ]; then
    say "nothing to push: the bundle's commits are already on $remote/$branch"
    exit 0
  fi
  if ! run_verify; then
    loud "THE REPLAYED DAY FAILED VERIFICATION: nothing was pushed." \
      "'$verify_cmd' failed on $remote/$branch plus the bundle's commits (above). The bundle is unchanged."
    exit 1
  fi
  if push_with_retry; then exit 0; fi
  loud "THE KEPT DAY COULD NOT BE PUSHED to $remote/$branch: nothing was forced." \
    "Replayed from $from_bundle, which is unchanged. Run the same command again once $branch can take it:" \
    "  scripts/commit-day.sh --from-bundle $from_bundle${verify_cmd:+ --verify-cmd '$verify_cmd'}"
  exit 1
fi

# ---------------------------------------------------------------------------------------------------
# The day: commit data/ and push it.
# ---------------------------------------------------------------------------------------------------
[ -d data ] || die 2 "no data/ directory in $top"
paths=(data/)
for p in "${excludes[@]}"; do
  case $p in data/?*) paths+=(":(exclude)$p") ;; *) die 2 "--exclude $p: not a folder under data/" ;; esac
done
git add -- "${paths[@]}"
if git diff --cached --quiet -- "${paths[@]}"; then
  say "nothing new to commit"
  exit 0
fi
start=$(git rev-parse HEAD)
[ -n "$message" ] || message="data: observations for $day"
text=(-m "$message")
if [ -n "$body_file" ]; then
  if [ -s "$body_file" ]; then text+=(-m "$(cat "$body_file")"); else say "no commit body: $body_file is missing or empty"; fi
fi
# Only data/ is committed, whatever else may be staged.
git commit -q "${text[@]}" -- "${paths[@]}"
say "committed $(git rev-parse --short HEAD) $message"
run_verify || die 1 "'$verify_cmd' failed: the commit is left unpushed"

set +e
push_with_retry
pushed=$?
set -e
[ "$pushed" -eq 0 ] && exit 0
if [ "$pushed" -eq 2 ]; then
  reason="rebasing it onto $remote/$branch conflicts: someone else changed the same data files"
else
  reason="$attempts pushes failed"
fi

# Fallback: keep the day's commit(s) as a bundle. Relative to the remote branch as last fetched (only
# the day's commits, their parents named as prerequisites); before any fetch, relative to where the
# day started.
base=$start
git rev-parse -q --verify "$tracking^{commit}" >/dev/null && base=$tracking
mkdir -p "$bundle_dir"
bundle="$bundle_dir/day-$day-$(git rev-parse --short HEAD).bundle"
git bundle create -q "$bundle" "$base..HEAD" ||
  die 1 "THE DAY WAS NOT PUSHED ($reason) AND NO BUNDLE COULD BE WRITTEN: its commit is only in $top"
recover_local="scripts/commit-day.sh --from-bundle $bundle --verify-cmd 'npm run verify'"
how=()
if [ -n "${GITHUB_RUN_ID:-}" ] && [ -n "$artifact" ]; then
  how=(
    "It is uploaded as the artifact '$artifact' of run $GITHUB_RUN_ID. To recover the day"
    "without probing again, once main can take it (if the data files conflict, settle that on main first):"
    "  gh workflow run collect.yml${GITHUB_REPOSITORY:+ -R $GITHUB_REPOSITORY} -f recover_run_id=$GITHUB_RUN_ID"
    "or by hand, in a clean clone of $branch:"
    "  gh run download $GITHUB_RUN_ID${GITHUB_REPOSITORY:+ -R $GITHUB_REPOSITORY} -n $artifact -D /tmp/day"
    "  scripts/commit-day.sh --from-bundle /tmp/day/$(basename "$bundle") --verify-cmd 'npm run verify'"
  )
else
  how=("To recover the day without probing again, once $branch can take it, in a clean clone of $branch:"
    "  $recover_local")
fi
cat >"$bundle_dir/RECOVER.txt" <<EOF
The day's commit(s) could not be pushed to $remote/$branch on $(date -u +%FT%TZ): $reason.
Nothing was forced. The commit(s) are in $(basename "$bundle") (a git bundle: git bundle list-heads <file>).
$(printf '%s\n' "${how[@]}")
EOF
loud "THE DAY'S COMMIT WAS NOT PUSHED to $remote/$branch: $reason." \
  "Nothing was forced: $remote/$branch is as others left it. The day's commit(s) are kept in" \
  "  $bundle" "${how[@]}"
exit 1
