#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Apache workload of make bench: Debian's apache2 (event MPM) and ab,
# with the libraries ldd lists, a configuration and a 4 KiB page, in a
# directory laid out like /, which the guest copies onto its root:
#
#   scripts/apache-root.sh DIR
#
# The server listens on 127.0.0.1:8080, runs its workers as nobody and
# logs every request, as a stock server would; everything it writes is in
# /tmp. Started with
#   apache2 -f /etc/jifl-apache/apache2.conf -DFOREGROUND
set -euo pipefail

root=${1:?usage: apache-root.sh DIR}
die() { echo "apache-root: $*" >&2; exit 1; }

apache=/usr/sbin/apache2
ab=/usr/bin/ab
moddir=/usr/lib/apache2/modules
modules=(mpm_event authz_core mime)
[ -x "$apache" ] || die "$apache missing (install apache2-bin: scripts/setup.sh)"
[ -x "$ab" ] || die "$ab missing (install apache2-utils: scripts/setup.sh)"

rm -rf "$root"
mkdir -p "$root"

# a file at the same path under $root, and what ldd says it loads
copy_with_libs() {
	local lib
	mkdir -p "$root$(dirname "$1")"
	cp -L "$1" "$root$1"
	for lib in $(ldd "$1" | grep -o '/[^ ]*'); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}

copy_with_libs "$apache"
copy_with_libs "$ab"
for m in "${modules[@]}"; do
	[ -f "$moddir/mod_$m.so" ] || die "$moddir/mod_$m.so missing"
	copy_with_libs "$moddir/mod_$m.so"
done

conf=$root/etc/jifl-apache
mkdir -p "$conf" "$root/var/www/jifl"
{
	echo "# JIFL's Apache benchmark (scripts/apache-root.sh)"
	echo "ServerRoot /etc/jifl-apache"
	echo "ServerName localhost"
	echo "Listen 127.0.0.1:8080"
	for m in "${modules[@]}"; do
		echo "LoadModule ${m}_module $moddir/mod_$m.so"
	done
	cat <<'CONF'
User nobody
Group nogroup
DefaultRuntimeDir /tmp/jifl-apache
PidFile /tmp/jifl-apache/apache2.pid
ErrorLog /tmp/jifl-apache/error.log
LogLevel warn
LogFormat "%h %l %u %t \"%r\" %>s %O \"%{Referer}i\" \"%{User-Agent}i\"" combined
CustomLog /tmp/jifl-apache/access.log combined
TypesConfig /dev/null
AddType text/html .html
DocumentRoot /var/www/jifl
<Directory /var/www/jifl>
	Require all granted
</Directory>
# Debian's event MPM defaults, fewer threads for a small guest
StartServers 2
ServerLimit 2
ThreadsPerChild 8
MinSpareThreads 4
MaxSpareThreads 16
MaxRequestWorkers 16
MaxConnectionsPerChild 0
KeepAlive On
CONF
} > "$conf/apache2.conf"

# a page of 4 KiB exactly
page=$root/var/www/jifl/index.html
{
	echo "<!DOCTYPE html><html><head><title>JIFL</title></head><body><pre>"
	for i in $(seq 1 100); do
		printf 'line %03d of a page served by Apache to ab in the guest\n' "$i"
	done
} > "$page"
truncate -s 4075 "$page"
echo "</pre></body></html>" >> "$page"
chmod -R a+rX "$root"
echo "apache-root: ${root} ($(du -sh "$root" | cut -f1))"
