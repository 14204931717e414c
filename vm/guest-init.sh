#!/bin/sh
# PID 1 of the test guest: the host's root is mounted read-only over 9p, the
# run's result directory is the 9p share "results". Mount what a normal boot
# would, run results/cmd.sh, record its exit code, power off.
set -u

# libmount tells what is mounted from /proc/self/mountinfo; without it, on
# 7.3 it takes every fstab line for mounted already and ignores it.
mount -t proc proc /proc
mount -a -T "${0%/*}/guest-fstab" ||
	echo "guest-init: mount -a -T vm/guest-fstab failed" >/dev/console
# Scheduler features vm/run.sh asks for (sw_sched_features=A,B on the
# command line); the command does not run where one does not take.
for f in $(echo "${sw_sched_features:-}" | tr , ' '); do
	echo "$f" >/sys/kernel/debug/sched/features || {
		echo "guest-init: cannot set scheduler feature $f: not running the command" >/dev/console
		poweroff -f
	}
done
[ -z "${sw_sched_features:-}" ] ||
	echo "guest-init: sched/features: $(cat /sys/kernel/debug/sched/features)" >/dev/console
# devtmpfs lacks the links udev would make; kselftest writes to /dev/stdout.
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 results /mnt ||
	{ echo "guest-init: cannot mount the results share" >/dev/console; poweroff -f; }

ip link set lo up 2>/dev/null
export HOME=/tmp PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export RESULTS=/mnt
cd /tmp || exit 1

echo "guest-init: running command" >/dev/console
# A line at a time into the 9p file: kselftest's prefix.pl writes a byte at
# a time, and each byte would be a 9p round trip.
{
	sh /mnt/cmd.sh 2>&1
	echo "$?" >/mnt/exit-code
} | sed -u '' >>/mnt/output.log
echo "guest-init: command exited $(cat /mnt/exit-code)" >/dev/console
sync
umount /mnt
poweroff -f
