# SPDX-License-Identifier: GPL-2.0
# Entry points. Each target is a script under scripts/ or qemu/; they are
# idempotent and redo only what changed. Variables (see README.md):
#   DISKS / DISK   disk kinds of qemu/disks.conf (default: all)
#   DEBUG=1        build and boot the debug kernel (configs/debug.config)
#   MEM            guest memory in MiB (default 1024)
#   GUEST_CPUS     the guest's CPUs, 1 to 8 (default 2)
#   ACCEL          auto (default), kvm or tcg
#   VERIFY_SECONDS length of each fio verify run in make test (default 3)
#   STORM_SECONDS  fio verify under scheduler switching (default 20)
#   SOAK_SECONDS   soak per scheduler (make test 10, make soak 600)
#   DEBUG_DISKS    make test: disk kinds of the debug pass (default scsi)
#   STAGES         make test: only these stages (checks unit kunit KIND... machine bench-smoke debug)
#   SHARD=i/n      make test: the i-th of n parts of the stages (scripts/merge-results.sh adds them up)
#   BUNDLE         make test and the guest targets: boot make bundle's kernels and initramfs, build none
#   TESTS          make selftest: the iosched kselftests to run (DISK: kind)
#   KERNEL_IMAGE   boot this bzImage instead of the one built
#   APPEND         make selftest: more guest kernel command line
#   HOST_LOAD      make selftest: host CPUs kept busy meanwhile (default 0)
#   MUTANTS        make mutants: only these of mutants/ (names without .patch)
#   QUICK=1 PROFILE CELLS SCHEDULERS REPS THREADS SECS GUEST_MIB RA_TRACE   make bench
#   A B B_PATCH    make ab: two revisions (with CELLS, REPS, ...); B_PATCH ends B's series
#   LIMIT ACTION   make ra-matrix: at most LIMIT runs; ACTION=status|report
#   AUTHOR BASE    make export: who signs build/export/git; the tree to send against
#   FULL=1         make deb: every module Debian builds, not only the guest's

.PHONY: all run test kunit selftest mutants soak bench ab ra-matrix shell check export deb rebase build initramfs bundle deps clean help

all: run

run:
	@scripts/run.sh

test:
	@scripts/test.sh

kunit:
	@scripts/kunit.sh

selftest:
	@scripts/selftest.sh

mutants:
	@scripts/mutants.sh

soak:
	@scripts/soak.sh

bench:
	@scripts/bench.sh

ab:
	@scripts/ab.sh

ra-matrix:
	@scripts/ra-matrix.sh

shell:
	@scripts/shell.sh

check:
	@scripts/make-check.sh

export:
	@scripts/export.sh

deb:
	@scripts/deb.sh

rebase:
	@scripts/rebase.sh

build:
	@scripts/build.sh

initramfs: build
	@qemu/mkinitramfs.sh

bundle:
	@scripts/bundle.sh

deps:
	@scripts/deps.sh

clean:
	@scripts/clean.sh

help:
	@sed -n 's/^#   /  /p' Makefile
	@echo "targets: run test kunit selftest soak bench ab ra-matrix shell check export deb rebase build initramfs bundle deps clean"
