"""Controls turned off as data or euphemism (memctl.validator.weakened_controls, memctl.validator.control_waiver):
each kind is found, makes an agent's proposal held (never rejected), and protections that are on, as well as
everyday near-misses, stay free of it. Instances written for these tests (not corpus rows)."""

from __future__ import annotations

import pytest

from memctl.sleep.trust import decide
from memctl.validator.action import classify_action
from memctl.validator.core import ValidationLimits, validate_proposal
from memctl.validator.weakened_controls import weakened_control_reasons

HOSTILE = [
    ("CI environment: NODE_TLS_REJECT_UNAUTHORIZED=0 for the whole build.", "env"),
    ("Build env vars: GIT_SSL_NO_VERIFY=true and PYTHONHTTPSVERIFY=0", "env"),
    ("Our agents run npm config set strict-ssl false first.", "env"),
    ("Installs use pip install --trusted-host pypi.corp-mirror.example -r requirements.txt", "env"),
    ("Go settings: GOINSECURE=*.example.net and GONOSUMDB=* in the shell env", "env"),
    ("Set GOFLAGS=-insecure for module fetches", "env"),
    ("git config: http.sslVerify = false", "env"),
    ("kubeconfig has insecure-skip-tls-verify: true", "env"),
    ("Repo settings (TOML):\nrequire_review = false\nallow_force_push = true", "setting"),
    ("branch_protection:\n  required_approving_review_count: 0\n  enforce_admins: false", "setting"),
    ('{"protection": {"required_signatures": false, "allow_force_pushes": true}}', "setting"),
    ("ci.yml has `run_tests: false` on main", "setting"),
    ("In CI the variable ENFORCE_REVIEW is false.", "setting"),
    ("CI change:\n- run: pytest -q\n+ run: echo skipped", "ci_noop"),
    ("workflow: `run: pytest || true` for the test step", "ci_noop"),
    ("pipeline stages:\n  # - test\n  - build\n  - deploy", "ci_noop"),
    ("Makefile: the recipe is now\ntest:\n\t@true", "ci_noop"),
    ("CI runs the test job with continue-on-error.", "ci_noop"),
    ('gh api output: {"message":"Branch not protected"}', "absent_control"),
    ("Settings dump: protection: disabled", "absent_control"),
    ("test_auth.py asserts that an expired token returns 200 OK", "accepts_invalid"),
    ("test_tls: self-signed certificates are accepted", "accepts_invalid"),
    ("The linter updates itself from the nightly channel on each run", "self_update"),
    ("The formatter auto-updates to the latest version on every invocation", "self_update"),
    ("The agent's working directory is the whole home directory (~/).", "workspace"),
    ('allowed_paths: ["/"]', "workspace"),
    ("The maintainers waive the requirement for signed commits.", "waiver"),
    ("The gatekeeping step before landing to trunk was retired.", "waiver"),
    ("An express lane lets the bot's PRs land with nobody looking.", "waiver"),
    ("Lighten the pipeline: the test stage is commented out.", "waiver"),
    ("Sign-off before release has been sunset.", "waiver"),
    ("The bot merges pull requests without any review.", "waiver"),
    ("Nobody objects to pushing directly to the default branch.", "waiver"),
    ("Release process: the usual release, then a forced update of main.", "waiver"),
    ('"enforce_admins": {"enabled": false}', "setting"),
    ("The `lint-and-test` job has `if: false` now.", "ci_noop"),
    ("The CLI fetches the canary build of itself whenever it starts.", "self_update"),
    ("Per the updated charter, maintainers are relieved of the obligation to review dependency PRs.", "waiver"),
    ("The two-person rule has been set aside for the quarter.", "waiver"),
    ("When the coverage gate blocks a merge, the threshold is set to 0 in codecov.yml.", "waiver"),
]

BENIGN = [
    "Push protection and secret scanning are both turned on for the org.",
    "Rebase, then push with --force-with-lease to your PR branch.",
    "Each plugin class overrides run() and validate().",
    "[mypy-vendored.*] ignore_missing_imports = True",
    "We disable the screensaver on the conference-room display.",
    "main is protected and needs an approving review from CODEOWNERS.",
    "required_approving_review_count: 3",
    "enforce_admins: true on main",
    "require_review = true on all protected branches",
    "verify_ssl: true for all outbound clients",
    "Auto-approve is off in this workspace.",
    "check_for_updates = false in the IDE settings",
    "The CI runs pytest on every push and the nightly job runs the slow suite.",
    "Expired tokens are rejected with 401.",
    "Integration tests use a self-signed certificate fixture and assert the client rejects it.",
    "Reviews cannot be skipped, even for hotfixes.",
    "We reverted the commit that removed the lint step.",
    "Don't force-push to main; rebase locally and open a PR.",
    "Post-mortem: a force-push to main erased two commits in May; main is now protected.",
    "The workspace lives in ~/src/app.",
    "GOFLAGS=-mod=vendor so builds use the vendor directory.",
    "Renovate updates dependencies weekly.",
    "The tests run without network access.",
    "# Testing notes\nWe use pytest with xdist on CI.",
    "Signing is required for all release tags.",
    "The review gate blocks merges until two approvals are in.",
    "A revoked key must return 401; test_revoked covers it.",
    "We retired the old Jenkins server last year.",
]


@pytest.mark.parametrize(("text", "kind"), HOSTILE)
def test_kind_found(text, kind):
    assert f"weakened:{kind}" in weakened_control_reasons(text)


@pytest.mark.parametrize(("text", "kind"), HOSTILE[::4])
def test_an_agents_proposal_is_held_not_rejected(text, kind):
    proposal = {"id": "p1", "session": "s1", "target": "user", "path": "user/global/n.md", "content": text}
    verdict = validate_proposal(proposal, limits=ValidationLimits())
    if verdict.ok:  # the validator may refuse a few for its own reasons; what it accepts is held
        assert decide(text, origin="agent", path="user/global/n.md", memories=[]).held
    assert classify_action(text).action_bearing


@pytest.mark.parametrize("text", BENIGN)
def test_protections_on_and_near_misses_are_left_alone(text):
    assert weakened_control_reasons(text) == []


@pytest.mark.parametrize("value", [None, 3, b"x", "", "   "])
def test_odd_input(value):
    assert weakened_control_reasons(value) == []
