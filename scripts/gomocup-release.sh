#!/usr/bin/env bash
# The Gomocup release: Windows executables of pbrain-tengen, cross-built on
# Debian, checked under Wine against the Linux build, packed in
# dist/tengen-gomocup-VERSION.zip.
#
#   scripts/gomocup-release.sh            build, check, pack
#   scripts/gomocup-release.sh --no-32    the 64-bit engine only
#   scripts/gomocup-release.sh --games N  colour-swapped games under Wine
#                                         against the Linux build (default 2)
#   scripts/gomocup-release.sh --linux P  compare with this Linux engine
#                                         instead of building one
#   scripts/gomocup-release.sh --install-only   the tools, nothing else
#
# What it needs, installed with apt when missing: Debian's newer Rust with
# its standard-library source (rustc-web, cargo-web, rust-web-src, 1.96),
# MinGW for 64- and 32-bit Windows, Wine (packages wine and wine64) and
# zip. The rustup toolchain and the Linux build in target/release are left
# alone: the Windows build uses /usr/bin/cargo and /usr/bin/rustc and its
# own target directory, target/windows.
#
# The Windows engine is built without the default feature `serve` (the
# analysis board and its HTTP stack): a manager's engine needs none of
# it, and the zip stays small.
#
# The targets are x86_64-win7-windows-gnu and i686-win7-windows-gnu: they
# run on Windows 7 and later and under Debian's Wine 8 (the plain
# *-pc-windows-gnu standard library needs bcryptprimitives.dll, which that
# Wine lacks). Rust ships no prebuilt standard library for them, so it is
# built from source (-Zbuild-std, allowed on a stable compiler by
# RUSTC_BOOTSTRAP=1).
#
# Checks, each fatal: the 64-bit engine's `bench` node total under Wine
# equals the Linux build's (both printed), and it plays N games through
# `pbrain-tengen match` against the Linux build with no fault (time,
# crash, protocol error, illegal move).
set -euo pipefail
cd "$(dirname "$0")/.."

games=2
build32=1
linux=
install_only=0
while [ $# -gt 0 ]; do
    case "$1" in
        --no-32) build32=0 ;;
        --install-only) install_only=1 ;;
        --linux)
            linux="${2:?--linux needs a path}"
            shift
            ;;
        --games)
            games="${2:?--games needs a number}"
            shift
            ;;
        *)
            echo "usage: $0 [--no-32] [--games N] [--linux PATH] [--install-only]" >&2
            exit 2
            ;;
    esac
    shift
done

say() { echo "== $*"; }

# -- tools -------------------------------------------------------------------
need=()
/usr/bin/rustc --version 2>/dev/null | grep -q '^rustc 1\.9[6-9]\|^rustc 1\.[1-9][0-9][0-9]' || need+=(rustc-web cargo-web rust-web-src)
[ -d /usr/lib/rustlib/src/rust/library ] || need+=(rust-web-src)
command -v x86_64-w64-mingw32-gcc >/dev/null || need+=(gcc-mingw-w64-x86-64)
if [ "$build32" = 1 ]; then
    command -v i686-w64-mingw32-gcc >/dev/null || need+=(gcc-mingw-w64-i686)
fi
# wine64 is the emulator; the wine package gives the `wine` command.
command -v wine >/dev/null || need+=(wine wine64)
command -v zip >/dev/null || need+=(zip)
if [ ${#need[@]} -gt 0 ]; then
    say "installing ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

[ "$install_only" = 1 ] && exit 0

# -- builds ------------------------------------------------------------------
if [ -z "$linux" ]; then
    say "Linux build (the reference)"
    cargo build --release --bin pbrain-tengen
    linux=target/release/pbrain-tengen
fi

# One cross build; prints the executable's path.
cross() {
    local triple=$1 gcc=$2
    local var
    var="CARGO_TARGET_$(echo "$triple" | tr 'a-z-' 'A-Z_')_LINKER"
    env RUSTC_BOOTSTRAP=1 RUSTC=/usr/bin/rustc "$var=$gcc" \
        /usr/bin/cargo build --release --bin pbrain-tengen --no-default-features \
        -Zbuild-std=std,panic_abort --target "$triple" --target-dir target/windows >&2
    echo "target/windows/$triple/release/pbrain-tengen.exe"
}
build_cmd="RUSTC_BOOTSTRAP=1 RUSTC=/usr/bin/rustc CARGO_TARGET_X86_64_WIN7_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc /usr/bin/cargo build --release --bin pbrain-tengen --no-default-features -Zbuild-std=std,panic_abort --target x86_64-win7-windows-gnu"

say "Windows 64-bit build (x86_64-win7-windows-gnu)"
exe64=$(cross x86_64-win7-windows-gnu x86_64-w64-mingw32-gcc)
exe32=
note32=
if [ "$build32" = 1 ]; then
    say "Windows 32-bit build (i686-win7-windows-gnu)"
    if exe32=$(cross i686-win7-windows-gnu i686-w64-mingw32-gcc); then
        :
    else
        echo "note: the 32-bit build failed; the package holds the 64-bit engine only" >&2
        exe32=
    fi
fi

version=$(sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -n 1)
stage=dist/tengen-gomocup-$version
rm -rf "$stage"
mkdir -p "$stage"
cp "$exe64" "$stage/pbrain-tengen64.exe"
[ -n "$exe32" ] && cp "$exe32" "$stage/pbrain-tengen.exe"

# -- checks under Wine -------------------------------------------------------
export WINEDEBUG=-all
# The first start makes the Wine prefix (slow); do it before anything timed.
wineboot -i >/dev/null 2>&1 || true

say "bench: Linux and Windows (under Wine)"
bench_linux=$("$linux" bench | tail -n 1 | cut -d' ' -f1)
bench_win=$(wine "$stage/pbrain-tengen64.exe" bench 2>/dev/null | tr -d '\r' | tail -n 1 | cut -d' ' -f1)
echo "linux   $bench_linux nodes"
echo "win64   $bench_win nodes"
if [ "$bench_linux" != "$bench_win" ]; then
    echo "error: the Windows engine's bench differs from the Linux build's" >&2
    exit 1
fi
if [ -n "$exe32" ]; then
    # Debian's wine64 alone cannot start 32-bit programs; check when it can.
    if bench32=$(wine "$stage/pbrain-tengen.exe" bench 2>/dev/null | tr -d '\r' | tail -n 1 | cut -d' ' -f1) && [ -n "$bench32" ]; then
        echo "win32   $bench32 nodes"
        note32="the same under Wine"
        if [ "$bench32" != "$bench_linux" ]; then
            echo "error: the 32-bit engine's bench differs from the Linux build's" >&2
            exit 1
        fi
    else
        echo "win32   not run (this Wine cannot start 32-bit programs)"
        note32="not checked: this Wine could not start 32-bit programs"
    fi
fi

say "protocol replies: Linux and Windows (under Wine), CRLF input"
# A node-limited session is deterministic: the replies must be the same
# (MESSAGE lines carry times, so they are left out). Gomocup's 80 MB
# memory limit sizes the table on both systems. No END: the replies to the
# searches come before the end of input closes the engine.
session='START 15\r\nINFO max_memory 83886080\r\nINFO max_node 30000\r\nBEGIN\r\nTURN 9,8\r\nBOARD\r\n7,7,1\r\n8,8,2\r\n6,6,1\r\nDONE\r\nTAKEBACK 6,6\r\nABOUT\r\nBLAH\r\nTURN 99,99\r\nRESTART\r\nINFO rule 4\r\nBOARD\r\n7,7,1\r\n8,8,2\r\n7,8,1\r\n9,9,2\r\nDONE\r\nYXSHOWFORBID\r\n'
replies() { printf "$session" | "$@" 2>/dev/null | tr -d '\r' | grep -v '^MESSAGE' || true; }
replies_linux=$(replies "$linux")
replies_win=$(replies wine "$stage/pbrain-tengen64.exe")
echo "$replies_win"
if [ "$replies_linux" != "$replies_win" ] || [ -z "$replies_win" ]; then
    echo "error: the Windows engine's replies differ from the Linux build's:" >&2
    diff <(echo "$replies_linux") <(echo "$replies_win") >&2 || true
    exit 1
fi

if [ "$games" -gt 0 ]; then
    say "$games game(s) under Wine against the Linux build, 200 ms a move"
    json=$(mktemp)
    "$linux" match --engine "name=linux,cmd=$linux" \
        --engine "name=windows,cmd=wine $stage/pbrain-tengen64.exe" \
        --games "$games" --tc 200ms --json "$json" | tee "$stage.match.txt"
    # Every game must end by five, a full board or the move limit: no
    # fault of either engine (time, crash, protocol error, illegal move).
    reasons=$(grep -o '"reason": "[^"]*"' "$json" || true)
    if [ "$(echo "$reasons" | grep -c .)" != "$games" ] ||
        echo "$reasons" | grep -v -e 'five in a row' -e 'full board' -e 'move limit'; then
        echo "error: a game under Wine did not end by five or a full board (see above)" >&2
        exit 1
    fi
    rm -f "$json" "$stage.match.txt"
fi

# -- package -----------------------------------------------------------------
cat >"$stage/README.txt" <<EOF
tengen $version - a Gomoku and Renju engine (Gomocup protocol)

pbrain-tengen64.exe  64-bit Windows (Windows 7 and later)
$( [ -n "$exe32" ] && echo "pbrain-tengen.exe    32-bit Windows (Windows 7 and later)" )

Rules: freestyle (0), standard (1), renju (4), caro (8), caro exact (9);
board sizes 5 to 22 (15 and 20 in Gomocup). Protocol: the Gomocup
protocol (START, RECTSTART, BEGIN, TURN, BOARD, INFO, ABOUT, END,
RESTART, TAKEBACK, SWAP2BOARD, Yixin-Board's YXBLOCK).

Bench: $bench_linux
(the node total of \`pbrain-tengen64.exe bench\` under Wine; the Linux
build gives the same)$( [ -n "$exe32" ] && printf '\n32-bit engine: %s' "$note32" )

Source commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo " with uncommitted changes")
Built on Debian with:
  $build_cmd
(and the same with i686-win7-windows-gnu and i686-w64-mingw32-gcc for the
32-bit engine), by scripts/gomocup-release.sh.
EOF
# Windows line ends for Notepad.
sed -i 's/$/\r/' "$stage/README.txt"
zipfile=dist/tengen-gomocup-$version.zip
rm -f "$zipfile"
(cd "$stage" && zip -q -9 "../$(basename "$zipfile")" ./*.exe README.txt)
say "packed $zipfile"
unzip -l "$zipfile"
