# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the scripts: paths, pinned sources, cache keys.
# Source it; it defines variables and functions and runs nothing.

WREN_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WREN_CACHE=${WREN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wren}
WREN_BUILD=${WREN_BUILD:-$WREN_TOP/build}

# Pinned source tarballs: Debian source package, the suite it comes from,
# the orig tarball and its sha256.  The Debian revision may move on; the
# upstream tarball may not.
QEMU_PKG=qemu
QEMU_SUITE=bookworm
QEMU_TARBALL=qemu_7.2+dfsg.orig.tar.xz
QEMU_SHA256=91aca71520040edc40b8d437aa3004dae614f58e286cf653ee8996c07af2962f
QEMU_SRCDIR=qemu-7.2.0

RDMA_CORE_PKG=rdma-core
RDMA_CORE_SUITE=trixie
RDMA_CORE_TARBALL=rdma-core_56.1.orig.tar.gz
RDMA_CORE_SHA256=63ce7f2baa7242c2dbc76375dac957c420187dd27f8c5e148efc07971ee522a8
RDMA_CORE_SRCDIR=rdma-core-56.1

# The distribution's own rdma-core (bookworm's libibverbs1), whose source
# libwren is also built against for installation (scripts/build-libwren-distro):
# a provider only loads into the libibverbs it was built for.  The
# archive's orig tarball is the upstream release; DISTRO_RDMA_CORE_TREE is
# the git tree of the same release's tag, the pin when the source comes
# from a clone of upstream instead (WREN_RDMA_CORE_GIT).
DISTRO_RDMA_CORE_PKG=rdma-core
DISTRO_RDMA_CORE_SUITE=bookworm
DISTRO_RDMA_CORE_TARBALL=rdma-core_44.0.orig.tar.gz
DISTRO_RDMA_CORE_SHA256=25d6601e60f27bbcd75e07fe340400cb80e6c3c487679700535385cfc9d9858b
DISTRO_RDMA_CORE_TREE=f06279af9a9e343729fa1425d4c02767d6de7180
DISTRO_RDMA_CORE_SRCDIR=rdma-core-44.0

PERFTEST_PKG=perftest
PERFTEST_SUITE=trixie
PERFTEST_TARBALL=perftest_25.01.0+0.80.orig.tar.gz
PERFTEST_SHA256=54e86b131f0b06862b8b9cd692739737295463cfef467bdda5f5aa3dae8c5b05

# The host's own Python, not whatever python3 comes first on PATH.
WREN_PYTHON=/usr/bin/python3

wren_log() {
	printf 'wren: %s\n' "$*" >&2
}

wren_die() {
	printf 'wren: error: %s\n' "$*" >&2
	exit 1
}

# wren_hash_inputs PATH...: a sha256 over the names and contents of every
# file under the given paths (relative to WREN_TOP), for cache keys.
wren_hash_inputs() {
	(cd "$WREN_TOP" && find "$@" -type f -print0 | LC_ALL=C sort -z |
		xargs -0 sha256sum) | sha256sum | cut -c1-16
}

# A private apt configuration that knows the deb-src lines we need,
# leaving the machine's own sources alone.
wren_apt_config() {
	local dir=$WREN_CACHE/apt

	if [ ! -f "$dir/apt.conf" ]; then
		mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" \
			"$dir/sources.list.d" "$dir/preferences.d"
		cat >"$dir/sources.list" <<-EOF
		deb-src http://deb.debian.org/debian bookworm main
		deb-src http://deb.debian.org/debian trixie main
		EOF
		cat >"$dir/apt.conf" <<-EOF
		Dir::State "$dir";
		Dir::State::Lists "$dir/lists";
		Dir::Cache "$dir/cache";
		Dir::Etc::SourceList "$dir/sources.list";
		Dir::Etc::SourceParts "$dir/sources.list.d";
		Dir::Etc::PreferencesParts "$dir/preferences.d";
		EOF
	fi
	if [ ! -f "$dir/updated" ]; then
		APT_CONFIG=$dir/apt.conf apt-get -q update >"$dir/update.log" 2>&1 ||
			wren_die "apt-get update with the private sources failed, see $dir/update.log"
		touch "$dir/updated"
	fi
	echo "$dir/apt.conf"
}

# wren_fetch PKG SUITE TARBALL SHA256: the path of a verified upstream
# tarball in the download cache, fetched with apt-get source if missing.
wren_fetch() {
	local pkg=$1 suite=$2 tarball=$3 sha=$4
	local dl=$WREN_CACHE/downloads file conf

	file=$dl/$tarball
	if [ -f "$file" ] && echo "$sha  $file" | sha256sum -c --status; then
		echo "$file"
		return
	fi
	mkdir -p "$dl"
	conf=$(wren_apt_config)
	wren_log "downloading $tarball"
	(cd "$dl" && APT_CONFIG=$conf apt-get -q source --download-only \
		--tar-only "$pkg/$suite" >"$dl/$pkg.log" 2>&1) ||
		wren_die "apt-get source $pkg/$suite failed, see $dl/$pkg.log"
	echo "$sha  $file" | sha256sum -c --status ||
		wren_die "$tarball: sha256 mismatch (expected $sha)"
	echo "$file"
}
