# Sourced by the packaging scripts: where the checkout, the cargo profile and target directory
# are, which version is being packaged, and how to stop with a message.
repo=$(cd "$(dirname "$0")/.." && pwd)
profile=${AGENT_HOOKS_PROFILE:-dist}
target=${CARGO_TARGET_DIR:-$repo/target}
case "$target" in /*) ;; *) target=$repo/$target ;; esac
# The directory cargo writes a profile's binaries to: dev and test share debug/, bench release/.
case "$profile" in
    dev | test) profile_dir=debug ;;
    bench) profile_dir=release ;;
    *) profile_dir=$profile ;;
esac
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$repo/Cargo.toml" | head -n 1)

fail() {
    echo "packaging/${0##*/}: $*" >&2
    exit 1
}
