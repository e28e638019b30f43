# SPDX-License-Identifier: GPL-2.0
"""scripts/export.sh's mail-ready series: who may sign it (never the
placeholder patches/ carry), the placeholder replaced everywhere it
appears, and To:/Cc: from get_maintainer.pl, per patch and, for the cover
letter, for all of them."""
import email
import email.policy
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
        for domain in ('b.example', 'b.invalid', 'b.localhost', 'b.test',
                       'example.org', 'example.com', 'mail.example.net',
                       'B.EXAMPLE', 'Example.Org'):
            self.assertIn('takes no mail',
                          self.problem(f'A <a@{domain}>'), domain)
        self.assertEqual(self.problem('A <a@myexample.org>'), '')

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
R:\t"Doe, John" <john@kernel.org>
L:\tlinux-foo@vger.kernel.org
S:\tMaintained
F:\tdrivers/foo/

BAR DRIVER
M:\tBar Keeper <bar@kernel.org>
R:\tFoo Keeper <foo@kernel.org>
L:\tlinux-foo@vger.kernel.org
S:\tMaintained
F:\tdrivers/bar/
"""


def mail(n, paths):
    diffs = ''.join(f'diff --git a/{p} b/{p}\n--- a/{p}\n+++ b/{p}\n'
                    f'@@ -1 +1 @@\n-old\n+new\n' for p in paths)
    return (f'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n'
            f'From: A U Thor <author@kernel.org>\n'
            f'Subject: [RFC PATCH {n}/2] change {paths[0]}\n\n'
            f'Body.\n---\n' + diffs)


def addresses(text, header):
    """The addresses of a header of mail $text, unfolded, in order."""
    msg = email.message_from_string(text, policy=email.policy.default)
    values = msg.get_all(header) or []
    return [str(a) for v in values for a in v.addresses]


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
        self.write('0001-foo.patch', mail(1, ['drivers/foo/a.c']))
        self.write('0002-bar.patch', mail(2, ['drivers/bar/b.c', 'drivers/foo/c.c']))
        export_fn('add_recipients "$1" "$2" "$3"', self.tree, self.dest,
                  'ree@kernel.org')

    def write(self, name, text):
        with open(os.path.join(self.dest, name), 'w') as f:
            f.write(text)

    def read(self, name):
        with open(os.path.join(self.dest, name)) as f:
            return f.read()

    def test_each_patch_goes_to_its_maintainers(self):
        first = self.read('0001-foo.patch')
        self.assertEqual(addresses(first, 'To'), ['Foo Keeper <foo@kernel.org>'])
        # Ree Viewer reviews drivers/foo/, but is the sender here.
        self.assertEqual(addresses(first, 'Cc'), ['"Doe, John" <john@kernel.org>',
                                                  'linux-foo@vger.kernel.org'])

    def test_a_maintainer_who_also_reviews_is_only_in_to(self):
        second = self.read('0002-bar.patch')
        self.assertEqual(sorted(addresses(second, 'To')),
                         ['Bar Keeper <bar@kernel.org>', 'Foo Keeper <foo@kernel.org>'])
        self.assertNotIn('Foo Keeper <foo@kernel.org>', addresses(second, 'Cc'))

    def test_the_cover_letter_goes_to_everyone_once(self):
        cover = self.read('0000-cover-letter.patch')
        self.assertEqual(sorted(addresses(cover, 'To')),
                         ['Bar Keeper <bar@kernel.org>', 'Foo Keeper <foo@kernel.org>'])
        self.assertEqual(addresses(cover, 'Cc'), ['"Doe, John" <john@kernel.org>',
                                                  'linux-foo@vger.kernel.org'])

    def test_headers_are_folded_one_address_to_a_line(self):
        head = self.read('0000-cover-letter.patch').split('\n\n', 1)[0]
        self.assertIn('To: Foo Keeper <foo@kernel.org>,\n Bar Keeper <bar@kernel.org>\n',
                      head + '\n')

    def test_a_get_maintainer_failure_stops_the_export(self):
        # Only the reviewers' and lists' call fails: no patch may go out
        # without its Cc:.
        self.write('0001-foo.patch', mail(1, ['drivers/foo/a.c']))
        script = ('maintainers_of() { case "$*" in *--no-m*) die boom ;; '
                  '*) echo "X <x@kernel.org>" ;; esac; }; '
                  'add_recipients "$1" "$2" "$3"')
        run = subprocess.run(['bash', '-c', f'. "{EXPORT}"; {script}', 'bash',
                              self.tree, self.dest, 'ree@kernel.org'],
                             capture_output=True, text=True)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn('boom', run.stderr)

    def test_the_sender_is_not_a_recipient(self):
        for name in ('0000-cover-letter.patch', '0001-foo.patch', '0002-bar.patch'):
            self.assertNotIn('ree@kernel.org', self.read(name), name)

    def test_the_body_is_untouched(self):
        self.assertTrue(self.read('0001-foo.patch').endswith(
            '\n\n' + mail(1, ['drivers/foo/a.c']).split('\n\n', 1)[1]))


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

    def apply(self, commit_id, series=None, env=None):
        """Report and status of the series onto commit_id; the user's
        repository must come out as it went in."""
        before = (git(self.repo, 'worktree', 'list', '--porcelain'),
                  git(self.repo, 'for-each-ref'),
                  git(self.repo, 'config', '--local', '--list'))
        clone = os.path.join(self.tmp, 'clone')
        script = ('apply_onto_base "$1" "A U Thor <a@kernel.org>" "$2" "$3" "$4";'
                  ' echo "status $?"')
        run = subprocess.run(['bash', '-c', f'. "{EXPORT}"; set +e; {script}',
                              'bash', series or self.series, commit_id, self.repo,
                              clone], capture_output=True, text=True, check=True,
                             env=dict(os.environ, **(env or {})))
        after = (git(self.repo, 'worktree', 'list', '--porcelain'),
                 git(self.repo, 'for-each-ref'),
                 git(self.repo, 'config', '--local', '--list'))
        self.assertEqual(before, after)
        report = run.stdout.splitlines()
        return int(report[-1].split()[1]), report[:-1]

    def test_the_users_git_configuration_does_not_reach_the_clone(self):
        with tempfile.NamedTemporaryFile('w', suffix='.gitconfig') as conf:
            conf.write('[core]\n\tautocrlf = true\n')
            conf.flush()
            status, report = self.apply(self.c0, env={'GIT_CONFIG_GLOBAL': conf.name})
        self.assertEqual(status, 0, report)

    def test_the_users_other_worktrees_are_left_alone(self):
        # A worktree whose folder is away (an unmounted disk) must not be
        # pruned by the export.
        away = os.path.join(self.tmp, 'away')
        git(self.repo, 'worktree', 'add', '-q', '--detach', away, self.c0)
        os.rename(away, away + '.moved')
        self.apply(self.c0)
        self.assertIn(away, git(self.repo, 'worktree', 'list', '--porcelain'))

    def test_a_patch_with_no_history_in_the_tree_does_not_apply(self):
        # The series made in an unrelated repository: no preimage for a
        # three-way merge, nothing in conflict.
        other = os.path.join(self.tmp, 'other')
        os.makedirs(other)
        git(other, 'init', '-q')
        commit(other, {'c.txt': lines('x.txt')}, 'unrelated')
        commit(other, {'c.txt': lines('x.txt').replace('x.txt line 5', 'changed')}, 'c')
        series = os.path.join(self.tmp, 'other-series')
        git(other, 'format-patch', '-q', '-o', series, 'HEAD~1..HEAD')
        status, report = self.apply(self.c1, series)
        self.assertNotEqual(status, 0)
        self.assertEqual(len(report), 1)
        self.assertRegex(report[0], r'^0001-c\.patch: does not apply \((error|fatal): ')

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


@unittest.skipUnless(os.path.exists(GET_MAINTAINER),
                     'needs the pristine tree\'s get_maintainer.pl (make build)')
class BothSeries(unittest.TestCase):
    """format_both: the whole series as an RFC, and its first three
    patches, the fixes, as a series of their own; never half written."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        self.repo = os.path.join(tmp.name, 'repo')
        os.makedirs(os.path.join(self.repo, 'drivers', 'foo'))
        git(self.repo, 'init', '-q')
        with open(os.path.join(self.repo, 'MAINTAINERS'), 'w') as f:
            f.write(MAINTAINERS)
        commit(self.repo, {'drivers/foo/a.c': lines('a')}, 'base')
        git(self.repo, 'tag', 'base')
        for i in range(1, 5):
            commit(self.repo, {'drivers/foo/a.c': lines('a').replace(
                f'a line {i}\n', f'a changed {i}\n')}, f'foo: change {i}')

    def subjects(self, d):
        out = []
        for name in sorted(os.listdir(d)):
            with open(os.path.join(d, name)) as f:
                msg = email.message_from_file(f, policy=email.policy.default)
            out.append(' '.join(str(msg['Subject']).split()))
        return out

    def test_the_fixes_are_the_first_three_and_only_the_whole_is_an_rfc(self):
        whole, fixes = os.path.join(self.tmp, 'git'), os.path.join(self.tmp, 'fixes')
        export_fn('format_both "$1" base "$2" "$3"', self.repo, whole, fixes)
        self.assertEqual([s.split(']')[0] + ']' for s in self.subjects(whole)],
                         ['[RFC PATCH 0/4]', '[RFC PATCH 1/4]', '[RFC PATCH 2/4]',
                          '[RFC PATCH 3/4]', '[RFC PATCH 4/4]'])
        self.assertEqual(self.subjects(fixes)[1:], ['[PATCH 1/3] foo: change 1',
                                                    '[PATCH 2/3] foo: change 2',
                                                    '[PATCH 3/3] foo: change 3'])
        with open(os.path.join(TOP, 'patches', 'cover-letter-fixes')) as f:
            self.assertEqual(self.subjects(fixes)[0], '[PATCH 0/3] ' + f.readline().strip())
        self.assertFalse(os.path.exists(whole + '.tmp'))

    def test_a_failure_leaves_no_series(self):
        whole, fixes = os.path.join(self.tmp, 'git'), os.path.join(self.tmp, 'fixes')
        # get_maintainer.pl fails on every patch: MAINTAINERS is gone.
        os.remove(os.path.join(self.repo, 'MAINTAINERS'))
        run = subprocess.run(['bash', '-c', f'. "{EXPORT}"; format_both "$1" base "$2" "$3"',
                              'bash', self.repo, whole, fixes],
                             capture_output=True, text=True)
        self.assertNotEqual(run.returncode, 0)
        self.assertFalse(os.path.exists(whole))
        self.assertFalse(os.path.exists(fixes))


if __name__ == '__main__':
    unittest.main()
