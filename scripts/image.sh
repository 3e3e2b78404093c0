#!/usr/bin/env bash
# Builds aidw's container image from Debian 12 packages alone, with no registry:
#   1. go build aidw on this (Debian 12) machine, against Debian's GDAL 3.6;
#   2. mmdebstrap makes a root file system of Debian 12's essential packages and GDAL's runtime
#      (libgdal32 and what it depends on), and copies the binary in as /usr/local/bin/aidw;
#   3. podman import makes the OCI image of it, with aidw as its entrypoint and /data as its
#      working directory; with AIDW_IMAGE_ARCHIVE=<file.tar> it is also saved as an OCI
#      archive, for machines without podman (`ctr -n k8s.io images import`, `kind load
#      image-archive`, `skopeo copy oci-archive:... docker://<your registry>/aidw:<tag>`).
#
#   scripts/image.sh                      # localhost/aidw:latest
#   AIDW_IMAGE=localhost/aidw:1.2 scripts/image.sh
#
# Needs root (mmdebstrap --mode=root) and a Debian mirror (AIDW_MIRROR, else the host's apt
# sources); installs mmdebstrap and podman with apt-get when they are missing. The entrypoint
# is the one deploy/k8s names: `aidw <command> ...`, a tile worker being
# `aidw grid --manifest /data/plan.json` with JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID set.
set -euo pipefail
cd "$(dirname "$0")/.."
IMAGE=${AIDW_IMAGE:-localhost/aidw:latest}
say() { printf 'image [%3ds]: %s\n' "$SECONDS" "$*"; }

missing=()
command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
command -v podman >/dev/null || missing+=(podman)
command -v runc >/dev/null || missing+=(runc)
if ((${#missing[@]})); then
	say "installing ${missing[*]}"
	apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null
fi

WORK=$(mktemp -d /var/tmp/aidw-image.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
say "building aidw"
go build -trimpath -ldflags "-X main.version=$(git describe --always --dirty 2>/dev/null || echo dev)" \
	-o "$WORK/aidw" ./cmd/aidw

say "making the root file system (Debian 12 and libgdal32)"
# no documentation, manuals or translations: a third of the size
mmdebstrap --mode=root --variant=essential --include=libgdal32,ca-certificates \
	--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
	--customize-hook="copy-in $WORK/aidw /usr/local/bin" \
	--customize-hook='chroot "$1" /usr/local/bin/aidw --version' \
	--customize-hook='mkdir -p "$1/data"' \
	bookworm "$WORK/rootfs.tar" ${AIDW_MIRROR:+"$AIDW_MIRROR"} >"$WORK/mmdebstrap.log" 2>&1 ||
	{
		tail -20 "$WORK/mmdebstrap.log"
		exit 1
	}

say "importing $IMAGE"
podman import --quiet --change 'ENTRYPOINT ["/usr/local/bin/aidw"]' --change 'WORKDIR /data' \
	--message "aidw $(git rev-parse --short HEAD 2>/dev/null || echo dev) on Debian 12" \
	"$WORK/rootfs.tar" "$IMAGE" >/dev/null
if [[ -n ${AIDW_IMAGE_ARCHIVE:-} ]]; then
	podman save --format oci-archive -o "$AIDW_IMAGE_ARCHIVE" "$IMAGE"
	say "saved $AIDW_IMAGE_ARCHIVE"
fi
say "$IMAGE: $(podman image inspect --format '{{.Size}}' "$IMAGE") bytes"
