#!/bin/sh
# Makes the npm package `agent-hooks-runtime` for this platform: the TypeScript client compiled
# to JavaScript with its declarations (dist/src/index.js, index.d.ts) and the `agent-hooks`
# binary (bin/agent-hooks, run by `npx agent-hooks-runtime` and, once installed, as
# `agent-hooks`), with `os` and `cpu` set so npm refuses it elsewhere. It is staged in a
# scratch directory, so nothing is written to the checkout.
#
# Usage: sh packaging/npm-pack.sh [OUT_DIR]   (default: the current directory)
# Prints the tarball's path. AGENT_HOOKS_PROFILE (default dist) and CARGO_TARGET_DIR pick the
# build of the binary, built first if needed, or AGENT_HOOKS_BINARY names one already built;
# AGENT_HOOKS_TSC the tsc (default: tsc on PATH).
set -eu
. "$(dirname "$0")/common.sh"

out=$(mkdir -p "${1:-.}" && cd "${1:-.}" && pwd)
tsc=${AGENT_HOOKS_TSC:-tsc}
stage=$(mktemp -d "${TMPDIR:-/tmp}/agent-hooks-npm.XXXXXX")
trap 'rm -rf "$stage"' EXIT INT TERM
client="$repo/clients/typescript"

package_version=$(node -p 'require(process.argv[1]).version' "$client/package.json")
[ "$package_version" = "$version" ] ||
    fail "clients/typescript/package.json says $package_version, Cargo.toml $version: make them agree"

binary=${AGENT_HOOKS_BINARY:-}
if [ -z "$binary" ]; then
    CARGO_TARGET_DIR=$target cargo build --quiet --locked -p agent-hooks-cli --profile "$profile" \
        --manifest-path "$repo/Cargo.toml" >&2 || fail "cargo build --profile $profile failed"
    binary="$target/$profile_dir/agent-hooks"
fi
[ -x "$binary" ] || fail "$binary is not an executable file"

mkdir -p "$stage/bin"
cp "$binary" "$stage/bin/agent-hooks"
cp "$client/package.json" "$client/README.md" "$repo/LICENSE-MIT" "$repo/LICENSE-APACHE" "$stage/"

# An installed tsc finds @types/node beside itself, not beside the sources.
types=""
real_tsc=$(realpath "$(command -v "$tsc")" 2>/dev/null || true)
modules=${real_tsc%/typescript/bin/tsc}
[ "$modules" = "$real_tsc" ] || [ ! -d "$modules/@types/node" ] || types="--typeRoots $modules/@types"
# shellcheck disable=SC2086 # $types is empty or two words
"$tsc" --strict --target es2022 --module commonjs --lib es2022 --types node $types \
    --declaration --rootDir "$client/src" --outDir "$stage/dist/src" "$client/src/index.ts" >&2 ||
    fail "tsc could not compile clients/typescript/src"

# The platform this binary runs on, in npm's names (which are Node's); the scripts and tools
# that build the client from source mean nothing to an installed package.
node -e '
const fs = require("node:fs");
const file = process.argv[1];
const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
pkg.os = [process.platform];
pkg.cpu = [process.arch];
delete pkg.scripts;
delete pkg.devDependencies;
fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + "\n");
' "$stage/package.json"

name=$(cd "$stage" && npm_config_cache="$stage/.npm-cache" npm pack --silent --ignore-scripts --pack-destination "$out") || fail "npm pack failed"
echo "$out/$name"
