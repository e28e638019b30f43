# SPDX-License-Identifier: GPL-2.0
"""scripts/test.sh's orchestration, with what it starts stubbed: which
stages run for STAGES, SHARD and BUNDLE, on a fresh build directory, and
that the parts of a sharded run add up to the whole one."""

import os
import shutil
import subprocess
import tarfile
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The scripts make test starts, each logging its name (and DEBUG) to
# $BUILD/calls; the host checks print one passing TAP line.
STUB = '#!/bin/bash\necho "%s DEBUG=${DEBUG:-0}" >>"$BUILD/calls"\n%s'
TAP_OK = 'printf "ok 1 %s\\n1..1\\n"\n'
STUBS = {
    'scripts/deps.sh': '',
    'scripts/fetch.sh': '',
    'scripts/build.sh': '',
    'qemu/mkinitramfs.sh': '',
    'scripts/check.sh': TAP_OK % 'checkpatch',
    'scripts/distro-config.sh': TAP_OK % 'config',
    'scripts/export.sh': '',
    'scripts/bisect.sh': TAP_OK % 'bisect',
    'scripts/distro-modules.sh': TAP_OK % 'modules',
    'scripts/bench.sh': '',
    'bench/check-results.py': '',
}

# Guests, the disk model and the accelerator probe, as qemu-lib.sh's
# functions: a boot logs its name and passes one test.
QEMU_LIB_STUBS = r'''
boot_guest() {
	echo "boot $1 DEBUG=${DEBUG:-0}" >>"$BUILD/calls"
	[ "$GUEST_CPUS" = 2 ] || echo "boot $1 with $GUEST_CPUS CPUs" >>"$BUILD/calls"
	printf 'ok 1 %s\n1..1\n' "$1" >"$LOGS/$1.tap"
	cp "$LOGS/$1.tap" "$LOGS/$1.console"
}
build_disk_model() {
	mkdir -p "$BUILD/diskmodel"
	printf '#!/bin/sh\necho "ok 1 model"; echo 1..1\n' >"$BUILD/diskmodel/test_model"
	chmod +x "$BUILD/diskmodel/test_model"
}
accel() { echo tcg; }
built_schedulers() { echo none,mq-deadline; }
'''


class TestSh(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        top = cls.top = os.path.join(cls.tmp.name, 'top')
        for d in ('scripts', 'qemu'):
            shutil.copytree(os.path.join(TOP, d), os.path.join(top, d),
                            ignore=shutil.ignore_patterns('tests', 'diskmodel', 'guest'))
        for d in ('bench/report', 'scripts/tests'):
            os.makedirs(os.path.join(top, d))
            with open(os.path.join(top, d, 'test_one.py'), 'w') as f:
                f.write('import unittest\n\n\nclass One(unittest.TestCase):\n'
                        '    def test_one(self):\n        pass\n')
        for path, body in STUBS.items():
            with open(os.path.join(top, path), 'w') as f:
                f.write(STUB % (path, body))
            os.chmod(os.path.join(top, path), 0o755)
        with open(os.path.join(top, 'bench/check-results.py'), 'w') as f:
            f.write('print("ok 1 smoke")\nprint("1..1")\n')
        with open(os.path.join(top, 'scripts/qemu-lib.sh'), 'a') as f:
            f.write(QEMU_LIB_STUBS)
        git = ['git', '-C', top, '-c', 'user.name=T', '-c', 'user.email=t@t']
        subprocess.run(git + ['init', '-q'], check=True)
        subprocess.run(git + ['add', '-A'], check=True)
        subprocess.run(git + ['commit', '-qm', 'stubs'], check=True)
        head = subprocess.run(git + ['rev-parse', 'HEAD'], check=True,
                              capture_output=True, text=True).stdout
        cls.bundle = os.path.join(cls.tmp.name, 'bundle.tar')
        with tarfile.open(cls.bundle, 'w') as tar:
            for name, text in [('bundle.id', head)] + [
                    (f'{o}/{f}', f) for o in ('obj', 'obj-debug')
                    for f in ('arch/x86/boot/bzImage', 'arch/x86/boot/bzImage.series',
                              '.config', 'include/config/kernel.release')] + [
                    (f, f) for f in ('initramfs.cpio.gz', 'initramfs.cpio.gz.hash', 'tools.img')]:
                path = os.path.join(cls.tmp.name, 'src', name)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, 'w') as f:
                    f.write(text)
                tar.add(path, arcname=name)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def make_test(self, **knobs):
        """Run test.sh in a fresh build directory: its exit status, last
        line, the calls it made (a set) and its results file's words."""
        build = tempfile.mkdtemp(dir=self.tmp.name)
        env = {k: v for k, v in os.environ.items()
               if k not in ('STAGES', 'SHARD', 'DEBUG', 'BUNDLE', 'BUILD_LOCKED')}
        env.update(BUILD=build, DISKS='sata nvme', DEBUG_DISKS='scsi', **knobs)
        run = subprocess.run([os.path.join(self.top, 'scripts/test.sh')], env=env,
                             capture_output=True, text=True, timeout=120)
        calls = set()
        if os.path.exists(os.path.join(build, 'calls')):
            with open(os.path.join(build, 'calls')) as f:
                calls = set(f.read().splitlines())
        results = None
        if os.path.exists(os.path.join(build, 'logs/results')):
            with open(os.path.join(build, 'logs/results')) as f:
                results = f.read().split()
        return run.returncode, run.stdout.strip(), calls, results, run.stderr

    def test_every_stage(self):
        code, last, calls, results, err = self.make_test()
        self.assertEqual((code, last), (0, '15 passed, 0 failed'), err)
        self.assertEqual(calls, {
            'scripts/deps.sh DEBUG=0', 'scripts/deps.sh DEBUG=1', 'scripts/fetch.sh DEBUG=0',
            'scripts/build.sh DEBUG=0',
            'qemu/mkinitramfs.sh DEBUG=0', 'scripts/check.sh DEBUG=0',
            'scripts/distro-config.sh DEBUG=0', 'scripts/export.sh DEBUG=0',
            'scripts/build.sh DEBUG=1', 'qemu/mkinitramfs.sh DEBUG=1',
            'scripts/bisect.sh DEBUG=0', 'scripts/distro-modules.sh DEBUG=0',
            'scripts/bench.sh DEBUG=0',
            'boot kunit DEBUG=0', 'boot test-sata DEBUG=0', 'boot test-nvme DEBUG=0',
            'boot test-machine DEBUG=0', 'boot test-smp DEBUG=0',
            'boot test-smp with 4 CPUs', 'boot debug-test-scsi DEBUG=1'})
        self.assertEqual(results, ['15', '0', '0', 'checks', 'unit', 'kunit', 'sata',
                                   'nvme', 'machine', 'bench-smoke', 'debug'])

    def test_checks_alone_on_a_fresh_build_directory(self):
        code, last, calls, results, err = self.make_test(STAGES='checks')
        self.assertEqual((code, last), (0, '5 passed, 0 failed'), err)
        self.assertNotIn('boot', ' '.join(calls))
        self.assertIn('scripts/bisect.sh DEBUG=0', calls)
        self.assertEqual(results, ['5', '0', '0', 'checks'])

    def test_unit_installs_host_packages_and_unpacks_the_source(self):
        code, _, calls, _, err = self.make_test(STAGES='unit')
        self.assertEqual(code, 0, err)
        self.assertEqual(calls, {'scripts/deps.sh DEBUG=0', 'scripts/fetch.sh DEBUG=0'})

    def test_a_bundle_builds_no_kernel(self):
        code, last, calls, _, err = self.make_test(STAGES='kunit debug', BUNDLE=self.bundle)
        self.assertEqual((code, last), (0, '2 passed, 0 failed'), err)
        self.assertEqual(calls, {'scripts/deps.sh DEBUG=0', 'scripts/deps.sh DEBUG=1',
                                 'boot kunit DEBUG=0', 'boot debug-test-scsi DEBUG=1'})

    def test_the_parts_of_a_sharded_run_add_up_to_it(self):
        _, whole, _, results, _ = self.make_test()
        files = []
        for part in ('1/2', '2/2'):
            code, _, _, part_results, err = self.make_test(SHARD=part)
            self.assertEqual(code, 0, err)
            files.append(os.path.join(self.tmp.name, part.replace('/', 'of')))
            with open(files[-1], 'w') as f:
                f.write(' '.join(part_results) + '\n')
            self.assertLess(len(part_results), len(results))
        merged = subprocess.run([os.path.join(TOP, 'scripts/merge-results.sh'), *files],
                                capture_output=True, text=True)
        self.assertEqual((merged.returncode, merged.stdout.strip()), (0, whole))
        self.assertEqual(merged.stderr, f'{len(results) - 3} stages from 2 runs\n')


if __name__ == '__main__':
    unittest.main()
