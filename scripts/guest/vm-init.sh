#!/bin/sh
# Guest init for scripts/vm (the Shoal QEMU test bed).  POSIX sh only.
#
# The file runs twice inside the guest:
#
#  stage 1  as /init of the initramfs, under busybox sh.  It loads the virtio,
#           9p and overlay modules, mounts the host's root (virtio-9p, tag
#           "hostroot", read-only) under a tmpfs overlay at /newroot, and
#           prepares everything there: proc, sys, dev, debugfs, /run,
#           the control share (tag "shoalctl"), the writable output share
#           (tag "shoalout") at its host path, loopback, sysctls.  All of this
#           uses the static busybox of the initramfs: under TCG every exec of
#           a dynamically linked host binary over 9p costs a good fraction of
#           a second.  Then it switch_roots, re-executing itself from /run.
#
#  stage 2  as PID 1 of the switched root, under the host's /bin/sh (dash):
#           runs the command that scripts/vm wrote into the control share,
#           saves dmesg and the exit status there and powers the guest off.
#
# Protocol with the host (files in the control share, see scripts/vm):
#   config   in:  shell assignments VM_MODE (cmd|shell), VM_OUT, VM_LOGLEVEL;
#                 VM_KREL, VM_MODULES for a kernel of our own (SHOAL_KERNEL)
#   run.sh   in:  exports the environment, cd's, execs the command or shell
#   started  out: created just before the command starts
#   dmesg    out: the kernel log after the command
#   kmemleak out: a kernel with kmemleak: its report after the command
#   status   out: the command's exit status (decimal), written last
#   error    out: a one-line reason if the test bed itself failed
# The console (ttyS0) is the host's log file; the command's stdout and stderr
# go to the virtio serial port named "shoal.out", which the host copies to its
# own stdout.

# SC1090/SC1091: the config is written by the host at run time.  SC3045:
# busybox sh and dash both have ulimit -c.  SC2015: "A && B || die" is meant.
# SC2093: the code after exec switch_root runs only if it fails.
# shellcheck disable=SC1090,SC1091,SC3045,SC2015,SC2093

NEWROOT=/newroot                # the switched root, seen from stage 1
CTL=/run/shoal-vm/ctl           # control share, seen from stage 2
MSIZE=512000                    # 9p message size: the virtio transport's max
P9_OPTS=trans=virtio,version=9p2000.L,msize=$MSIZE

# Log a progress message in the kernel log (timestamped; on the console too
# once the console log level is raised).
say() {
	echo "<5>shoal-vm: $*" >/dev/kmsg
}

# Print an error on the console (the host's log file) and in the kernel log.
shout() {
	echo "shoal-vm: $*" >/dev/console
	echo "<3>shoal-vm: $*" >/dev/kmsg
}

# Power the guest off at once; QEMU then exits.  Never returns.
power_off() {
	sync
	/bin/busybox poweroff -f
	echo o >/proc/sysrq-trigger     # fallback if busybox is missing
	while :; do sleep 60; done      # PID 1 must not exit (that panics)
}

# The test bed failed: tell the host why (through the control share if it
# is mounted, with exit status 125), then power off.  $1: control dir.
fail() {
	ctl=$1
	shift
	shout "FATAL: $*"
	if [ -e "$ctl/config" ]; then   # the control share is mounted
		echo "$*" >"$ctl/error"
		dmesg >"$ctl/dmesg" 2>&1
		echo 125 >"$ctl/status"
	fi
	power_off
}

# ---------------------------------------------------------------- stage 1 --

die1() {
	fail "$NEWROOT$CTL" "$@"
}

# mount_at TYPE SOURCE DIR [OPTIONS]: create DIR and mount there, or die.
mount_at() {
	mkdir -p "$3" && mount -t "$1" -o "${4:-defaults}" "$2" "$3" ||
		die1 "cannot mount $2 ($1) on $3"
}

# The overlay root: host root read-only below, tmpfs above.
mount_root() {
	while read -r mod; do
		insmod "/lib/modules/$mod" || die1 "insmod $mod failed"
	done </modules.list
	mount_at 9p hostroot /lower "$P9_OPTS,cache=loose,ro"
	mount_at tmpfs overlay-rw /rw mode=0755
	mkdir -p /rw/upper /rw/work
	mount_at overlay overlay $NEWROOT \
		lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work
}

# /run with the control share, whose config sets VM_MODE, VM_OUT, VM_LOGLEVEL.
mount_control() {
	mount_at tmpfs run $NEWROOT/run mode=0755,nosuid,nodev
	mount_at 9p shoalctl $NEWROOT$CTL "$P9_OPTS,cache=mmap"
	. $NEWROOT$CTL/config || die1 "cannot read the control share's config"
}

# The file systems tests expect, and the output share at its host path.
mount_filesystems() {
	# Second mounts of the same dev, proc and sys: the first ones stay
	# usable by this stage until switch_root.
	mount_at devtmpfs devtmpfs $NEWROOT/dev mode=0755,nosuid
	mount_at proc proc $NEWROOT/proc nosuid,nodev,noexec
	mount_at sysfs sysfs $NEWROOT/sys nosuid,nodev,noexec
	mount_at devpts devpts $NEWROOT/dev/pts gid=5,mode=620,ptmxmode=666
	mount_at tmpfs shm $NEWROOT/dev/shm mode=1777,nosuid,nodev
	# No fresh tmpfs on /tmp: the host's /tmp shows through the overlay
	# (writes stay in the guest), so a tree checked out below /tmp works.
	mount_at debugfs debugfs $NEWROOT/sys/kernel/debug
	mount_at tracefs tracefs $NEWROOT/sys/kernel/tracing
	mount_at bpf bpf $NEWROOT/sys/fs/bpf mode=0700
	mount_at cgroup2 cgroup2 $NEWROOT/sys/fs/cgroup
	[ -e $NEWROOT/dev/fd ] || ln -s /proc/self/fd $NEWROOT/dev/fd
	# After /run: the output directory may live below it.
	mount_at 9p shoalout "$NEWROOT$VM_OUT" "$P9_OPTS,cache=mmap"
	# A kernel of our own (scripts/vm, SHOAL_KERNEL): its module tree,
	# a host directory, where modprobe looks for it.
	if [ -n "${VM_MODULES:-}" ]; then
		mkdir -p "$NEWROOT/lib/modules/$VM_KREL" &&
			mount --bind "$NEWROOT$VM_MODULES" "$NEWROOT/lib/modules/$VM_KREL" ||
			die1 "cannot bind $VM_MODULES on /lib/modules/$VM_KREL"
	fi
}

# Kernel and process settings for tests.
setup_system() {
	echo shoal-vm >/proc/sys/kernel/hostname
	ip link set dev lo up || die1 "cannot bring up lo"
	echo 0 >/proc/sys/kernel/panic_on_oops
	# No userspace ASLR: TCG caches translated code per virtual address, so
	# fixed library addresses make every later exec 10-30% cheaper.
	echo 0 >/proc/sys/kernel/randomize_va_space
	ulimit -c 0                     # inherited by everything below
	# Raise the console log level: in command mode the console is only the
	# log file, so it may as well record everything as it happens.
	echo "$VM_LOGLEVEL" >/proc/sys/kernel/printk
}

stage1() {
	PATH=/bin
	export PATH
	/bin/busybox --install -s /bin
	mount -t devtmpfs devtmpfs /dev
	exec </dev/console >/dev/console 2>&1
	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
	mount_root
	mount_control
	mount_filesystems
	setup_system
	cp /init $NEWROOT/run/shoal-vm/init
	say "switching to the host root"
	umount -l /dev /proc /sys
	exec switch_root $NEWROOT /bin/sh /run/shoal-vm/init stage2
	die1 "switch_root failed"
}

# ---------------------------------------------------------------- stage 2 --

die2() {
	fail "$CTL" "$@"
}

# Print the /dev node of the virtio serial port named $1 (waits up to 10 s).
find_port() {
	tries=0
	while [ $tries -lt 100 ]; do
		for dir in /sys/class/virtio-ports/vport*; do
			name=
			read -r name <"$dir/name" 2>/dev/null || continue
			if [ "$name" = "$1" ] && [ -c "/dev/${dir##*/}" ]; then
				echo "/dev/${dir##*/}"
				return 0
			fi
		done
		tries=$((tries + 1))
		sleep 0.1
	done
	return 1
}

# Run the command with its output on the shoal.out port; sets $status.
run_command() {
	port=$(find_port shoal.out) || die2 "virtio port shoal.out not found"
	say "running the command"
	: >"$CTL/started"               # no retry of the boot from now on
	# setsid: the command gets its own session and process group.
	setsid /bin/sh "$CTL/run.sh" </dev/null >"$port" 2>&1
	status=$?
}

# Run an interactive shell on the serial console; sets $status.
run_shell() {
	say "starting a shell"
	: >"$CTL/started"
	setsid -c /bin/sh "$CTL/run.sh" </dev/ttyS0 >/dev/ttyS0 2>&1
	status=$?
}

# A kernel with kmemleak (scripts/debug-kernel) has no scan thread: scan
# now, after the command, twice (an object the first scan saw unreferenced
# only for a moment is referenced again by the second and not reported;
# kmemleak skips objects younger than 5 s), and hand the report to the host.
kmemleak_scan() {
	kml=/sys/kernel/debug/kmemleak
	[ -w $kml ] || return 0
	say "kmemleak: scanning"
	echo scan >$kml
	sleep 5
	echo scan >$kml
	cat $kml >"$CTL/kmemleak" 2>&1
	say "kmemleak: $(grep -c '^unreferenced object' "$CTL/kmemleak") object(s) reported"
}

stage2() {
	export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	. "$CTL/config"
	case "$VM_MODE" in
	shell) run_shell ;;
	*) run_command ;;
	esac
	say "command exited with status $status"
	[ "$VM_MODE" = shell ] || kmemleak_scan
	dmesg >"$CTL/dmesg" 2>&1
	echo "$status" >"$CTL/status"   # last: the host trusts it once present
	power_off
}

if [ "${1:-}" = stage2 ]; then
	stage2
else
	stage1
fi
