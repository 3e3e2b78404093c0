#!/usr/bin/env bash
# Builds the Debian package out/aidw_<version>_<arch>.deb with dpkg-deb and prints its path:
# the binary (the CPU build), its man page and bash and zsh completions (which the binary
# generates from its own declarations: `aidw man`, `aidw completion bash|zsh`), the QGIS
# plugin zip (scripts/qgis-package.sh), and the licences (LICENSE, then those of the Go modules
# the binary holds). It depends on the shared libraries the binary links, GDAL's among them, as
# dpkg-shlibdeps finds them on this machine (libgdal32 on Debian 12). AIDW_VERSION overrides the
# version, by default the plugin's version with the commit's date and hash
# (0.1.0+git20261127.abc1234), and AIDW_MAINTAINER the maintainer (name <email>). Needs Go;
# installs GDAL's dev package, dpkg-dev and python3 from Debian when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
missing=()
command -v dpkg-shlibdeps >/dev/null || missing+=(dpkg-dev)
command -v python3 >/dev/null || missing+=(python3)
if [ ${#missing[@]} -gt 0 ]; then
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq -o DPkg::Lock::Timeout=300 "${missing[@]}" >/dev/null
fi

base=$(sed -n 's/^version=//p' qgis/aidw_processing/metadata.txt)
version=${AIDW_VERSION:-$base+git$(git log -1 --format=%cd.%h --date=format:%Y%m%d 2>/dev/null || echo 0)}
arch=$(dpkg --print-architecture)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/man/man1" "$root/usr/share/doc/aidw" \
	"$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
	"$root/usr/share/aidw/qgis"

bin=$root/usr/bin/aidw
go build -ldflags "-s -w -X main.version=$version" -o "$bin" ./cmd/aidw
"$bin" man | gzip -9n >"$root/usr/share/man/man1/aidw.1.gz"
"$bin" completion bash >"$root/usr/share/bash-completion/completions/aidw"
"$bin" completion zsh >"$root/usr/share/zsh/vendor-completions/_aidw"
cp "$(scripts/qgis-package.sh)" "$root/usr/share/aidw/qgis/"

# The licences: aidw's, then Go's standard library and every module linked into the binary.
{
	cat LICENSE
	printf '\nThe aidw binary holds the Go standard library and the Go modules below, each under its own licence.\n'
	printf '\n---- Go standard library %s\n\n' "$(go env GOVERSION)"
	cat "$(go env GOROOT)/LICENSE"
	go version -m "$bin" | awk '$1 == "dep" { print $2, $3 }' | while read -r mod ver; do
		dir=$(go list -m -f '{{.Dir}}' "$mod")
		lic=$(find "$dir" -maxdepth 1 -type f -iregex '.*/\(licen[cs]e\|copying\)\(\.md\|\.txt\)?' | sort | head -1)
		[ -n "$lic" ] || { echo "deb.sh: no licence file in $dir" >&2; exit 1; }
		printf '\n---- %s %s\n\n' "$mod" "$ver"
		if head -5 "$lic" | grep -q 'Apache License' && grep -q 'Version 2.0' "$lic"; then
			echo "The Apache License, Version 2.0: on Debian, /usr/share/common-licenses/Apache-2.0."
			[ ! -f "$dir/NOTICE" ] || cat "$dir/NOTICE"
		else
			cat "$lic"
		fi
	done
} >"$root/usr/share/doc/aidw/copyright"
maintainer=${AIDW_MAINTAINER:-aidw developers <aidw@localhost>}
printf 'aidw (%s) unstable; urgency=medium\n\n  * Built from %s.\n\n -- %s  %s\n' "$version" \
	"$(git rev-parse HEAD 2>/dev/null || echo 'a source tree')" "$maintainer" "$(date -R)" |
	gzip -9n >"$root/usr/share/doc/aidw/changelog.gz"

# dpkg-shlibdeps reads the package's name from a debian/control of its own.
mkdir -p "$work/src/debian"
printf 'Source: aidw\n\nPackage: aidw\nArchitecture: any\n' >"$work/src/debian/control"
depends=$(cd "$work/src" && dpkg-shlibdeps -O -e"$bin" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "deb.sh: dpkg-shlibdeps found no dependencies of $bin" >&2; exit 1; }
summary=$("$bin" --help | sed -n 's/^ *aidw - //p' | head -1)
cat >"$root/DEBIAN/control" <<CONTROL
Package: aidw
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Suggests: gdal-bin, qgis
Section: science
Priority: optional
Homepage: https://github.com/aidw/aidw
Description: $summary
 aidw grids scattered point samples (OGR vector sources, CSV/XYZ text, LAS,
 LAZ and COPC) into georeferenced rasters by Adaptive IDW and by every
 gdal_grid algorithm, on all CPU cores, in memory or in tiles larger than
 memory. Its grid command takes gdal_grid's options. The QGIS Processing
 plugin is in /usr/share/aidw/qgis.
CONTROL

mkdir -p out
deb=out/aidw_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
