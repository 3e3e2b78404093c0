#!/usr/bin/env bash
# CI: builds the Debian package (scripts/deb.sh), installs it with apt as a user would, checks
# the installed aidw (its version, its man page, its bash completion, a grid of
# testdata/n43_samples.csv from a file and through a pipe, read back by gdalinfo), and removes
# the package again, also when a check fails.
set -euo pipefail
cd "$(dirname "$0")/.."
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
apt() { DEBIAN_FRONTEND=noninteractive $sudo apt-get -y -qq -o DPkg::Lock::Timeout=300 "$@" >/dev/null; }
command -v man >/dev/null || apt install man-db

deb=$(scripts/deb.sh)
if dpkg -s aidw >/dev/null 2>&1; then
	echo "deb-test: the aidw package is already installed: remove it first (apt-get remove aidw)" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'apt remove aidw; rm -rf "$tmp"' EXIT
apt install "./$deb"

fail() { echo "deb-test: $*" >&2; exit 1; }
[ "$(command -v aidw)" = /usr/bin/aidw ] || fail "aidw on PATH is $(command -v aidw), not the package's"
version=$(dpkg-deb -f "$deb" Version)
aidw --version | grep -qF "aidw $version " || fail "aidw --version says '$(aidw --version)', not version $version"
[ "$(man -w aidw)" = /usr/share/man/man1/aidw.1.gz ] || fail "man -w aidw: $(man -w aidw 2>&1)"
man aidw 2>/dev/null | grep -q 'invdistnn' || fail "the man page lists no algorithms"
words=$(bash -c 'source /usr/share/bash-completion/completions/aidw
	COMP_WORDS=(aidw grid -a invdist); COMP_CWORD=3; _aidw; echo "${COMPREPLY[*]}"')
[ "$words" = "invdist invdistnn" ] || fail "bash completes 'aidw grid -a invdist' to '$words'"
for f in /usr/share/doc/aidw/copyright /usr/share/zsh/vendor-completions/_aidw /usr/share/aidw/qgis/aidw_processing-*.zip; do
	[ -s "$f" ] || fail "$f is missing"
done

# the README's Quick start grid, from the installed binary, read back by GDAL
grid=(-a aidw -zfield elevation -a_srs EPSG:4326 -txe -80.0041667 -78.9958333 -tye 42.9958333 44.0041667
	-outsize 121 121 -ot Float32)
aidw grid -q "${grid[@]}" testdata/n43_samples.csv "$tmp/n43.tif"
info=$(gdalinfo -stats "$tmp/n43.tif")
grep -q 'Size is 121, 121' <<<"$info" || fail "n43.tif: $info"
grep -q 'Type=Float32' <<<"$info" || fail "n43.tif is not Float32: $info"
grep -q 'STATISTICS_VALID_PERCENT=100' <<<"$info" || fail "n43.tif has nodata nodes: $info"
# the same through pipes: text on standard input, the GTiff on standard output
aidw grid -q "${grid[@]}" /vsistdin/ /vsistdout/ <testdata/n43_samples.csv >"$tmp/piped.tif"
sum() { gdalinfo -checksum "$1" | sed -n 's/.*Checksum=//p'; }
[ "$(sum "$tmp/piped.tif")" = "$(sum "$tmp/n43.tif")" ] || fail "the piped raster differs from the file's"
echo "deb-test: $deb installs, runs and is removed"
