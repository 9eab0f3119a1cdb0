#!/usr/bin/env bash
# Tests .pre-commit-hooks.yaml with a real pre-commit (Debian's package):
# a throwaway repository uses this checkout's hooks, and a commit of Python
# with a CUDA hazard must be refused with cudadoctor's finding while a clean
# one goes through. Both hooks are exercised: cudadoctor-lint (pre-commit
# builds the binary with Go) and cudadoctor-lint-system (a cudadoctor on PATH).
#
#   bench/precommit/run.sh            # exit 0 pass, 1 fail, 77 skipped
#
# pre-commit is installed with apt-get when missing (needs root); when it
# cannot be, the script says so and exits 77. Not part of `go test ./...`:
# it installs packages and builds the binary twice (a few minutes).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
skip() { echo "SKIP: $*" >&2; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

if ! command -v pre-commit >/dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "installing Debian's pre-commit ..." >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends pre-commit >/dev/null 2>&1 ||
			skip "pre-commit is not installed and 'apt-get install pre-commit' failed"
	else
		skip "pre-commit is not installed, and installing it needs root and apt-get"
	fi
fi
command -v go >/dev/null || skip "the cudadoctor-lint hook builds with Go, and go is not on PATH"
command -v git >/dev/null || skip "git is not installed"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" PRE_COMMIT_HOME="$work/cache" GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME"
git config --global user.email test@example.com
git config --global user.name test
git config --global init.defaultBranch main
# The hook repository is this working tree as it is now (tracked files and
# new ones git does not ignore), committed into a fresh repository, since
# pre-commit clones a revision.
hooks="$work/hooks"
mkdir -p "$hooks"
(cd "$root" && git ls-files -z --cached --others --exclude-standard) |
	(cd "$root" && xargs -0 cp --parents -t "$hooks" 2>/dev/null || true)
git -C "$hooks" init -q && git -C "$hooks" add -A && git -C "$hooks" commit -qm hooks
rev=$(git -C "$hooks" rev-parse HEAD)
# Reuse the module cache: pre-commit gives the build its own GOPATH, and
# the modules are the same.
GOMODCACHE=$(go env GOMODCACHE)
export GOMODCACHE

check_hook() {
	local id=$1 repo="$work/user-$1"
	mkdir -p "$repo"
	git -C "$repo" init -q
	cat >"$repo/.pre-commit-config.yaml" <<YAML
repos:
  - repo: $hooks
    rev: $rev
    hooks:
      - id: $id
YAML
	cp "$root/internal/pycheck/rules/testdata/CD101/flagged.py" "$repo/copy_then_read.py"
	printf 'import torch\n\nx = torch.ones(3, device="cuda")\nprint(x.sum().item())\n' >"$repo/clean.py"
	(
		cd "$repo"
		pre-commit install >/dev/null
		git add .pre-commit-config.yaml clean.py
		git commit -qm clean >"$work/$id-clean.out" 2>&1 || { cat "$work/$id-clean.out" >&2; fail "$id: a clean file was refused"; }
		git add copy_then_read.py
		if git commit -qm hazard >"$work/$id-bad.out" 2>&1; then
			cat "$work/$id-bad.out" >&2
			fail "$id: a commit with a CD101 hazard went through"
		fi
		grep -q "copy_then_read.py:5:12: CD101" "$work/$id-bad.out" ||
			{ cat "$work/$id-bad.out" >&2; fail "$id: the refusal does not show the CD101 finding"; }
	)
	echo "ok: $id refuses copy_then_read.py (CD101) and accepts clean.py"
}

check_hook cudadoctor-lint
# The system hook runs the cudadoctor on PATH: build one.
mkdir -p "$work/bin"
(cd "$root" && go build -o "$work/bin/cudadoctor" ./cmd/cudadoctor)
PATH="$work/bin:$PATH" check_hook cudadoctor-lint-system
echo "PASS: pre-commit $(pre-commit --version | awk '{print $2}') runs both hooks"
