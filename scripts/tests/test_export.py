# SPDX-License-Identifier: GPL-2.0
"""scripts/export.sh's mail-ready series: who may sign it (never the
placeholder patches/ carry), the placeholder replaced everywhere it
appears, and To:/Cc: from get_maintainer.pl, per patch and, for the cover
letter, for all of them."""
import os
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
EXPORT = os.path.join(HERE, '..', 'export.sh')
TOP = os.path.abspath(os.path.join(HERE, '..', '..'))
GET_MAINTAINER = os.path.join(TOP, 'build', 'linux-pristine', 'scripts',
                              'get_maintainer.pl')


def export_fn(script, *args, stdin=None, env=None):
    """Run bash snippet $script with export.sh's functions defined."""
    run_env = dict(os.environ, GIT_CONFIG_NOSYSTEM='1')
    run_env.pop('AUTHOR', None)
    run_env.update(env or {})
    return subprocess.run(['bash', '-c', f'. "{EXPORT}"; {script}', 'bash',
                           *args], input=stdin, text=True, env=run_env,
                          capture_output=True, check=True).stdout


def placeholder():
    return export_fn('placeholder_identity').strip()


class Sender(unittest.TestCase):
    def problem(self, identity):
        return export_fn('sender_problem "$1"', identity).strip()

    def test_a_real_address_may_sign(self):
        self.assertEqual(self.problem('A U Thor <author@kernel.org>'), '')
        self.assertEqual(
            self.problem('Matthew Wilcox (Oracle) <willy@infradead.org>'), '')

    def test_the_placeholder_may_not(self):
        self.assertIn('is the placeholder patches/ carry',
                      self.problem(placeholder()))

    def test_nobody_and_malformed_identities_may_not(self):
        self.assertEqual(self.problem(''), 'no sender identity')
        for bad in ('nobody', 'A <a@b>', ' <a@b.org>', 'A <a@b.org> x',
                    'A <<a@b.org>', '<a@b.org>'):
            self.assertIn('is not of the form', self.problem(bad), bad)

    def test_domains_that_take_no_mail_may_not(self):
        for domain in ('example', 'invalid', 'localhost', 'test'):
            self.assertIn('takes no mail',
                          self.problem(f'A <a@b.{domain}>'), domain)

    def test_author_comes_before_git_config(self):
        with tempfile.NamedTemporaryFile('w', suffix='.gitconfig') as conf:
            conf.write('[user]\n\tname = Git User\n\temail = git@kernel.org\n')
            conf.flush()
            env = {'GIT_CONFIG_GLOBAL': conf.name}
            local = subprocess.run(['git', '-C', TOP, 'config', '--local',
                                    'user.name'], capture_output=True)
            if local.returncode == 0:
                self.skipTest('this checkout sets user.name itself')
            self.assertEqual(export_fn('sender_identity', env=env).strip(),
                             'Git User <git@kernel.org>')
            env['AUTHOR'] = 'A U Thor <author@kernel.org>'
            self.assertEqual(export_fn('sender_identity', env=env).strip(),
                             'A U Thor <author@kernel.org>')

    def test_no_identity_at_all_is_empty(self):
        env = {'GIT_CONFIG_GLOBAL': os.devnull}
        local = subprocess.run(['git', '-C', TOP, 'config', '--local',
                                'user.name'], capture_output=True)
        if local.returncode == 0:
            self.skipTest('this checkout sets user.name itself')
        self.assertEqual(export_fn('sender_identity', env=env), '')


class SignedBy(unittest.TestCase):
    def test_every_placeholder_is_the_sender_literally(self):
        old = placeholder()
        text = (f'From: {old}\nSubject: x\n\nSigned-off-by: {old}\n'
                f'+M:\t{old}\n M:\t{old}\nother line\n')
        sender = 'A $1 & \\1 (B) <a@kernel.org>'
        out = export_fn('signed_by "$1"', sender, stdin=text)
        self.assertEqual(out, text.replace(old, sender))
        self.assertNotIn(old, out)


MAINTAINERS = """\
FOO DRIVER
M:\tFoo Keeper <foo@kernel.org>
R:\tRee Viewer <ree@kernel.org>
L:\tlinux-foo@vger.kernel.org
S:\tMaintained
F:\tdrivers/foo/

BAR DRIVER
M:\tBar Keeper <bar@kernel.org>
L:\tlinux-foo@vger.kernel.org
S:\tMaintained
F:\tdrivers/bar/
"""


def mail(n, path):
    return (f'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n'
            f'From: A U Thor <author@kernel.org>\n'
            f'Subject: [RFC PATCH {n}/2] change {path}\n\n'
            f'Body.\n---\n'
            f'diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n'
            f'@@ -1 +1 @@\n-old\n+new\n')


def headers(text):
    return text.split('\n\n', 1)[0].split('\n')


@unittest.skipUnless(os.path.exists(GET_MAINTAINER),
                     'needs the pristine tree\'s get_maintainer.pl (make build)')
class Recipients(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tree = os.path.join(tmp.name, 'tree')
        self.dest = os.path.join(tmp.name, 'git')
        os.makedirs(self.tree)
        os.makedirs(self.dest)
        with open(os.path.join(self.tree, 'MAINTAINERS'), 'w') as f:
            f.write(MAINTAINERS)
        self.write('0000-cover-letter.patch',
                   'From x\nFrom: A U Thor <author@kernel.org>\n'
                   'Subject: [RFC PATCH 0/2] the series\n\nBlurb.\n')
        self.write('0001-foo.patch', mail(1, 'drivers/foo/a.c'))
        self.write('0002-bar.patch', mail(2, 'drivers/bar/b.c'))
        export_fn('add_recipients "$1" "$2" "$3"', self.tree, self.dest,
                  'ree@kernel.org')

    def write(self, name, text):
        with open(os.path.join(self.dest, name), 'w') as f:
            f.write(text)

    def read(self, name):
        with open(os.path.join(self.dest, name)) as f:
            return f.read()

    def test_each_patch_goes_to_its_maintainers(self):
        self.assertIn('To: Foo Keeper <foo@kernel.org>',
                      headers(self.read('0001-foo.patch')))
        # Ree Viewer reviews drivers/foo/, but is the sender here.
        self.assertIn('Cc: linux-foo@vger.kernel.org',
                      headers(self.read('0001-foo.patch')))
        self.assertIn('To: Bar Keeper <bar@kernel.org>',
                      headers(self.read('0002-bar.patch')))
        self.assertIn('Cc: linux-foo@vger.kernel.org',
                      headers(self.read('0002-bar.patch')))

    def test_the_cover_letter_goes_to_everyone_once(self):
        cover = headers(self.read('0000-cover-letter.patch'))
        self.assertIn('To: Foo Keeper <foo@kernel.org>, Bar Keeper <bar@kernel.org>',
                      cover)
        self.assertIn('Cc: linux-foo@vger.kernel.org', cover)

    def test_the_sender_is_not_a_recipient(self):
        for name in ('0000-cover-letter.patch', '0001-foo.patch', '0002-bar.patch'):
            self.assertNotIn('ree@kernel.org', self.read(name), name)

    def test_the_body_is_untouched(self):
        self.assertTrue(self.read('0001-foo.patch').endswith(
            '\n\n' + mail(1, 'drivers/foo/a.c').split('\n\n', 1)[1]))


def git(repo, *args):
    return subprocess.run(['git', '-C', repo, '-c', 'user.name=T',
                           '-c', 'user.email=t@kernel.org', *args],
                          check=True, capture_output=True, text=True).stdout


def lines(tag):
    return ''.join(f'{tag} line {i}\n' for i in range(1, 21))


def commit(repo, files, message):
    for name, text in files.items():
        with open(os.path.join(repo, name), 'w') as f:
            f.write(text)
    git(repo, 'add', '-A')
    git(repo, 'commit', '-q', '-m', message)
    return git(repo, 'rev-parse', 'HEAD').strip()


class OntoBase(unittest.TestCase):
    """Four patches onto a tree that moved on: one applies, one needs a
    three-way merge (its context changed), one conflicts (its line
    changed), and the one after the conflict is not tried."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        self.repo = os.path.join(tmp.name, 'linux')
        os.makedirs(self.repo)
        git(self.repo, 'init', '-q')
        names = ('a.txt', 'b.txt', 'c.txt', 'd.txt')
        self.c0 = commit(self.repo, {n: lines(n) for n in names}, 'v0')
        # The series, made on v0 in a clone.
        work = os.path.join(tmp.name, 'work')
        git(tmp.name, 'clone', '-q', self.repo, work)
        for n, line in zip(names, (3, 10, 17, 19)):
            text = lines(n).replace(f'{n} line {line}\n', f'{n} changed {line}\n')
            commit(work, {n: text}, f'change {n}')
        self.series = os.path.join(tmp.name, 'series')
        git(work, 'format-patch', '-q', '--cover-letter', '-o', self.series,
            'HEAD~4..HEAD')
        # The tree moves on: b.txt near the patch's line, c.txt on it.
        self.c1 = commit(self.repo, {
            'b.txt': lines('b.txt').replace('b.txt line 8\n', 'b.txt moved 8\n'),
            'c.txt': lines('c.txt').replace('c.txt line 17\n', 'c.txt other 17\n'),
        }, 'v1')

    def apply(self, commit_id):
        wt = os.path.join(self.tmp, 'wt')
        script = ('apply_onto_base "$1" "A U Thor <a@kernel.org>" "$2" "$3" "$4";'
                  ' status=$?; drop_worktree "$3" "$4"; exit $status')
        run = subprocess.run(['bash', '-c', f'. "{EXPORT}"; set +e; {script}',
                              'bash', self.series, commit_id, self.repo, wt],
                             capture_output=True, text=True)
        self.assertFalse(os.path.exists(wt))
        self.assertNotIn('wt', git(self.repo, 'worktree', 'list'))
        return run.returncode, run.stdout.splitlines()

    def test_onto_its_own_base_everything_applies(self):
        status, report = self.apply(self.c0)
        self.assertEqual(status, 0)
        self.assertEqual(report, ['0001-change-a.txt.patch: applies',
                                  '0002-change-b.txt.patch: applies',
                                  '0003-change-c.txt.patch: applies',
                                  '0004-change-d.txt.patch: applies'])

    def test_onto_a_tree_that_moved_each_patch_is_reported(self):
        status, report = self.apply(self.c1)
        self.assertNotEqual(status, 0)
        self.assertEqual(report, [
            '0001-change-a.txt.patch: applies',
            '0002-change-b.txt.patch: applies with a three-way merge',
            '0003-change-c.txt.patch: conflicts in c.txt',
            '0004-change-d.txt.patch: not tried'])

    def base_error(self, base):
        run = subprocess.run(['bash', '-c', f'. "{EXPORT}"; base_commit "$1"',
                              'bash', base], capture_output=True, text=True)
        self.assertNotEqual(run.returncode, 0)
        self.assertEqual(len(run.stderr.splitlines()), 1, run.stderr)
        return run.stderr

    def test_base_names_a_commit(self):
        self.assertEqual(export_fn('base_commit "$1"', self.repo).strip(), self.c1)
        self.assertEqual(export_fn('base_commit "$1"', f'{self.repo}:HEAD~1').strip(),
                         self.c0)
        self.assertIn('is not a git repository', self.base_error(self.tmp + '/none'))
        self.assertIn('has no commit v9', self.base_error(f'{self.repo}:v9'))


if __name__ == '__main__':
    unittest.main()
