"""Secrets never reach the index: not its stored text, keyword index, vectors or titles."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import CLI
from transcripts import Transcript, project_dir

from findsession.redact import redact

SECRETS = {
    "openai-key": "sk-proj-Q7m2Xv9LpR4tY8wK1nB6cZ3dF5gH0jS2",
    "anthropic-key": "sk-ant-api03-Zk8Wq2Lm5Nx7Rv1Tb4Yc9Hd3Fg6Js0Pa",
    "aws-access-key": "AKIAQ3EGUJ5KTR7ZWXYP",
    "github-token": "ghp_R8sT2vW5yZ1aB4cD7eF0gH3iJ6kL9mN2oP5q",
    "slack-token": "xoxb-2841735409-8Hq3Jm5Kp7Lr",
    "stripe-key": "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmaW5kc2Vzc2lvbiJ9.Qk4mZ8pR2tV6xY0aC3eG5iK7",
    "url-password": "Hunter2Falcon9",
    "secret-assignment": "p4ss-W0rd-Zebra-77",
    "private-key": "MIIEowIBAAKCAQEAx8vZ3kq",
}


def _pem(kind: str, body: list[str], newline: str = "\n") -> str:
    """A private key block; `newline` is "\\n" for one escaped inside JSON."""
    head, tail = f"-----BEGIN {kind}PRIVATE KEY-----", f"-----END {kind}PRIVATE KEY-----"
    return newline.join([head, *body, tail])


_PEM_BODY = [
    "tMoMWH0yjTWhzqTDuf5xHIa2I4iTDviBRbIH3DNiNjT8NPI++Cy1df70JI1iOaQh",
    "uVdgFP4nGjFHXzLYZbdO1o2JcQfP1iG8fGoia0MyNifetYVJHsaFByugXiCXEsgj",
    "JP9+a5UxG1+qiUfq6CGo8y0vtzwf5aMkNg5uvDemJR0G+PH6/wenBT60JLnF/d7O",
]
_AWS_SECRET = "8k6a9PjX8hp0qYwuO0+DfU1plFCP/e41Y1ybmWdQ"
_AWS_SESSION = (
    "FwoGZXIvYXdzEJr3f14BohIxoTk56mt9Gzzt95rdlHX604jy8Pyr3nzdQqxFYEGOkk2PafKqzYhULd2qQn"
    "enXKqfVhvkn0vgtzycJbgTdLgnWwKIJXLCd8ULU708RWOqZDh1Gjvq98rIUbtHfu/CtJa3P45TakJPOwRU3"
)
_AZURE_KEY = (
    "5ka7jrqIiCTrpD22tNr/iluTpjgjXSIM9Td9zKVUEcrXFk+X+2+2QWHhQ9AK/oAxEbtudj/gYQPxQudlChVD4g=="
)
# Built from parts so the file itself does not look like it holds live tokens.
_SENDGRID = "SG" + ".5XgjiRU1n4PPJHpGXyQDhQ._TIf8PE8wnVKXdpSxw3KJB6ErwevhWT77B5389cwEvn"
_PYPI = (
    "pypi-" + "AgEIcHlwaS5vcmc" + "5R02FqJYCPVS3YbG1mmP9B6_Q9KQmxdg-FeBfiDGD05jIwDQYoeAuQFutYs46c"
)
_TWILIO = "SK" + "43af8947bdcd0626ddf28cc1710b2855"
_DISCORD = "MTE4NzQ2NTk5MzI3NjA1NDU2Mg" + ".zn299I.zB9zpKdyk99nvngJ53aNqiD3oIK6RAk3cZv6HA"
_DISCORD_HOOK = "Qx7v" + "Kp2mLw9sRt4yZb8nC3dF6gH1jK0lM5nP7qR2sT4uV6wX8yZ0aB2cD4eF6gH8iJ0k"
_AZURE_PAT = "x4mq7kd2rwv6ptz3jnh5bcf8yg2a7lsq4e6u3wkm5dz7rtp2vnha"
#: A bot token of today: its last part is 38 characters, not 27.
_DISCORD_38 = "MTA1NzYxMjg3NDM0Mzg0NjgwMA" + ".GxYz12.Rk3pW8sLq2Nv7Tz5Xb1Jm4Hc9Df6Gy0Aa2Uz"
#: What a `DISCORD_BOT=` may hold that is not shaped like a Discord token.
_BOT_VALUE = "qK8vT3mX9pL2wN7rZ5sY4bH6jF1dG0aE"
# A third hostile run's kinds, built from parts like the rest.
_VAULT = (
    "hvs." + "CAESIdT9LVd4h3PxwqifTzxNRlOX1BEtXtIgcqseYzpH8fOCZcZOPYKB2IikZosK2iP7x8hipng4DDh31yWpf"
)
_UUID_TOKEN = "5f1c2e9a-7b3d-4c8e-" + "a1f0-9d2b6e4c7a31"
_NETLIFY = "nfp_" + "Kq3vX8mWz2Lp7RtY4bN9cD1fG6hJ0sA5eU2i"
_GROQ = "gsk_" + "qGXjXUgiOwm1FzXWlp003Rnx3pxQ2r9vbwO4qm014KHMojYko94Z"
_TAVILY = "tvly-" + "dev-Xq7Lm2Vt9Pz4Rk8Wn3Yb6Hc1Jd5Gf0Se"
_DIGITALOCEAN = "dop_v1_" + "ce8b3a122758fcb0b29266166e9c13018657bc14875cede1802522b47543b0c1"
_GITLAB_RUNNER = "glrt-" + "t3_S4Tvq6x04tupnLNDKCefQvth"
_GITLAB_DEPLOY = "gldt-" + "Xq7vL2mK9pR4sT8wZ3nB"
_GITLAB_TRIGGER = "glptt-" + "a3f9c2e8b7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2"
_TELEGRAM = "7412589630" + ":AAHiL1K4em38FeP6p8xweUwpjnVZ9YBz8e9"
_AZURE_CLIENT = "abC8" + "Q~SEwARWo7HS4zwvfJbfpLeiPA49q7Eeblr8"
_GOOGLE_OAUTH = "ya29." + "a0AfB_by7aWsd6kxdlyObo9R69v8IeCJlB6aqJD7mXFG3lxPGLT7sjWHyiAIaeIWFrQR"
_DOTTED = "s4ShL6Oh" + ".trJWIaqRHmbaM"
#: A bot token whose first part does not start with M, N or O.
_DISCORD_X = "XTE4NzQ2NTk5MzI3NjA1NDU2Mw" + ".Gq7Lw2.x5qPhRuEhpLMmfpsxomiZT5Zzud4NmooSqOYYl"
_GITHUB_FG = (
    "github_pat_"
    + "11AiPmhLs4rNJLQRCKhdhC_pXrk8oStIUjGYVQyECJV1QEd75Tcix80pExdMqKYMuuNSemBLb7T5H58Tlh"
)

#: Item by item, each kind a hostile run found stored in clear: (name, text, secrets).
#: Shared with tests/test_planted_secrets.py, which plants every one in every field.
LEAKED_KINDS: list[tuple[str, str, tuple[str, ...]]] = [
    (
        "gcp-service-account",
        json.dumps(
            {
                "type": "service_account",
                "project_id": "shop-prod-4821",
                "private_key_id": "3f9a2c17e0d1c2b3a4f5e6d7c8b9a0f1e2d3c4b5",
                "private_key": _pem("", _PEM_BODY) + "\n",
                "client_email": "deployer@shop-prod-4821.iam.gserviceaccount.com",
            },
            indent=2,
        ),
        (*_PEM_BODY, "3f9a2c17e0d1c2b3a4f5e6d7c8b9a0f1e2d3c4b5"),
    ),
    ("private-key-env", f'PRIVATE_KEY="{_pem("RSA ", _PEM_BODY)}"', tuple(_PEM_BODY)),
    ("private-key-yaml", "ssh_private_key: " + _pem("OPENSSH ", _PEM_BODY), tuple(_PEM_BODY)),
    (
        "private-key-json-escaped",
        f'PRIVATE_KEY="{_pem("EC ", _PEM_BODY, newline=chr(92) + "n")}"',
        tuple(_PEM_BODY),
    ),
    (
        "aws-sts-output",
        json.dumps(
            {
                "Credentials": {
                    "AccessKeyId": "ASIAQ3EGUJ5KTR7ZWXYP",
                    "SecretAccessKey": _AWS_SECRET,
                    "SessionToken": _AWS_SESSION,
                    "Expiration": "2026-06-11T10:00:00+00:00",
                }
            },
            indent=4,
        ),
        ("ASIAQ3EGUJ5KTR7ZWXYP", _AWS_SECRET, _AWS_SESSION),
    ),
    ("password-letters-only", "DB_PASSWORD=aebnwyzpspa\nDB_HOST=db", ("aebnwyzpspa",)),
    ("password-short", "REDIS_PASSWORD=Ab3ez77\n", ("Ab3ez77",)),
    (
        "url-password-no-user",
        "REDIS_URL=redis://:Zq8vRt2LmWx@cache.internal:6379/0",
        ("Zq8vRt2LmWx",),
    ),
    (
        "url-password-slash",
        "psql postgres://app:Xk9/q2Lm+Wv8rT@db.internal:5432/app",
        ("Xk9/q2Lm+Wv8rT",),
    ),
    (
        "escaped-json-token",
        json.dumps({"content": json.dumps({"token": "tK7mQ2xZ9pL4vN8rW3sY"})}),
        ("tK7mQ2xZ9pL4vN8rW3sY",),
    ),
    (
        "escaped-json-twice",
        json.dumps(
            {"line": json.dumps({"content": json.dumps({"token": "tK7mQ2xZ9pL4vN8rW3sY"})})}
        ),
        ("tK7mQ2xZ9pL4vN8rW3sY",),
    ),
    (
        "authorization-bearer",
        'curl -H "Authorization: Bearer 4f9a8c7e6d5b4a3c2b1a0f9e8d7c6b5a" https://api.shop.dev',
        ("4f9a8c7e6d5b4a3c2b1a0f9e8d7c6b5a",),
    ),
    (
        "authorization-basic",
        "GET /admin HTTP/1.1\nAuthorization: Basic YWRtaW46U3VwM3JTM2NyM3QtNzc=\n",
        ("YWRtaW46U3VwM3JTM2NyM3QtNzc",),
    ),
    (
        "azure-account-key",
        "DefaultEndpointsProtocol=https;AccountName=shopdata;"
        f"AccountKey={_AZURE_KEY};EndpointSuffix=core.windows.net",
        (_AZURE_KEY,),
    ),
    (
        "azure-sas",
        "https://shopdata.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&sp=r"
        "&se=2026-12-01T00:00:00Z&sig=CNDpxACy5xpwT3hhYPKsHtS6qKSGYft6hEDsWMEM%3D",
        ("CNDpxACy5xpwT3hhYPKsHtS6qKSGYft6hEDsWMEM",),
    ),
    (
        "npmrc-auth",
        "registry=https://npm.shop.dev/\n//npm.shop.dev/:_auth=ZGV2OnM0bHQtUGVwcGVyLTk5\n",
        ("ZGV2OnM0bHQtUGVwcGVyLTk5",),
    ),
    (
        "cli-password-flag",
        "docker login --username dev --password Tr0ub4dorX9q registry.shop.dev",
        ("Tr0ub4dorX9q",),
    ),
    ("mysql-p", "mysql -u root -pS3cretMysql9 shop < dump.sql", ("S3cretMysql9",)),
    ("sshpass", "sshpass -p 'Kx7#mQ2vLpw' ssh deploy@10.0.0.5", ("Kx7#mQ2vLpw",)),
    ("sendgrid", f"SENDGRID_KEY is {_SENDGRID} (mail)", (_SENDGRID,)),
    ("pypi", f"twine upload -u __token__ -p {_PYPI} dist/*", (_PYPI,)),
    ("twilio", f"client = Client({_TWILIO!r}, secret)", (_TWILIO,)),
    ("discord-bot", f"import discord\n\nbot.run({_DISCORD!r})", (_DISCORD,)),
    (
        "discord-webhook",
        f"curl -X POST https://discord.com/api/webhooks/1187465993276054562/{_DISCORD_HOOK}",
        (_DISCORD_HOOK,),
    ),
    ("github-fine-grained", f"gh auth login --with-token <<< {_GITHUB_FG}", (_GITHUB_FG,)),
    # A second hostile run: names that hold no secret word, prose, argv lists.
    ("password-pw", "DATABASE_URL_PW=Qz8vLm2pXw\nDATABASE_HOST=db", ("Qz8vLm2pXw",)),
    ("azure-devops-pat", f"export AZURE_DEVOPS_PAT={_AZURE_PAT}", (_AZURE_PAT,)),
    ("discord-bot-name", f"DISCORD_BOT={_BOT_VALUE}", (_BOT_VALUE,)),
    ("discord-bot-38", f"DISCORD_BOT={_DISCORD_38}", (_DISCORD_38,)),
    ("password-in-prose", "the password was Tr0ub4dor&3, keep it safe", ("Tr0ub4dor&3",)),
    ("password-said-quoted", "My password for the NAS is 'lemonade-Kx7q'", ("lemonade-Kx7q",)),
    ("argv-list-mysql", '["mysql", "-uroot", "-pS3cretMysql9", "shop"]', ("S3cretMysql9",)),
    ("argv-list-flag", "['psql', '--password', 'Pg5ecretVal9']", ("Pg5ecretVal9",)),
    # A third hostile run: provider formats, shapes of commands and config files.
    ("vault-token", f"vault login {_VAULT}", (_VAULT,)),
    ("dotted-assignment", f"API_TOKEN={_DOTTED}\nAPI_HOST=api.shop.dev", (_DOTTED,)),
    ("sudo-stdin", "echo 'Hunter2Zebra' | sudo -S apt-get install -y nginx", ("Hunter2Zebra",)),
    ("curl-user", "curl -u admin:Qz8vLm2pXw https://api.shop.dev/v1/orders", ("Qz8vLm2pXw",)),
    (
        "cookie-header",
        "curl -H 'Cookie: sessionid=8f3kq9vm2xl7pz4t; csrftoken=Wq2Lm8Zk4Vt9' https://shop.dev/",
        ("8f3kq9vm2xl7pz4t", "Wq2Lm8Zk4Vt9"),
    ),
    ("netrc", "machine api.shop.dev\n  login deploy\n  password Zk8vQ2mLpW7x\n", ("Zk8vQ2mLpW7x",)),
    (
        "docker-auth",
        json.dumps({"auths": {"registry.shop.dev": {"auth": "ZGVwbG95OlprOHZRMm1McFc3eA=="}}}),
        ("ZGVwbG95OlprOHZRMm1McFc3eA",),
    ),
    ("groq-key", f"client = Groq(api_key_value) # {_GROQ}", (_GROQ,)),
    # A Netlify personal access token in a table of the deploy's settings, and as a
    # shell default: no word near it says what it is.
    ("netlify-token", f"| **Deploy** | `{_NETLIFY}` |", (_NETLIFY,)),
    ("netlify-token-default", f'TOKEN="${{DEPLOY_TOKEN:-{_NETLIFY}}}"', (_NETLIFY,)),
    # A token with no prefix of its own (a UUID), as an agent lists it in Markdown and
    # writes it into a script as a shell default.
    ("markdown-code-value", f"- RAILWAY_TOKEN: `{_UUID_TOKEN}`", (_UUID_TOKEN,)),
    ("markdown-code-name", f"`DEPLOY_TOKEN`: `{_UUID_TOKEN}`", (_UUID_TOKEN,)),
    ("shell-default", f'RAILWAY_TOKEN="${{RAILWAY_TOKEN:-{_UUID_TOKEN}}}"', (_UUID_TOKEN,)),
    ("digitalocean-token", f"doctl auth init -t {_DIGITALOCEAN}", (_DIGITALOCEAN,)),
    (
        "gitlab-runner-token",
        f"the runner registered as {_GITLAB_RUNNER} on shop",
        (_GITLAB_RUNNER,),
    ),
    (
        "telegram-bot",
        f"curl https://api.telegram.org/bot{_TELEGRAM}/sendMessage -d chat_id=42",
        (_TELEGRAM.split(":")[1],),
    ),
    ("gitlab-deploy-token", f"the pipeline printed {_GITLAB_DEPLOY} in its log", (_GITLAB_DEPLOY,)),
    ("gitlab-trigger-token", f"the nightly job posts {_GITLAB_TRIGGER} to run", (_GITLAB_TRIGGER,)),
    ("azure-client-secret", f"az login --service-principal -p {_AZURE_CLIENT}", (_AZURE_CLIENT,)),
    ("google-oauth", f"gcloud returned {_GOOGLE_OAUTH} for the session", (_GOOGLE_OAUTH,)),
    ("discord-bot-any-letter", f"import discord\n\nclient.run({_DISCORD_X!r})", (_DISCORD_X,)),
    # Typed into a prompt by a person (a real chat): a search API's key, in a sentence.
    ("tavily-key", f"this is my search key {_TAVILY} use it", (_TAVILY,)),
]


def pieces(secret: str, n: int = 10) -> set[str]:
    """Every `n`-character piece of a secret (the whole of a shorter one)."""
    return {secret[i : i + n] for i in range(max(1, len(secret) - n + 1))}


class Haystack:
    """A large text or bytes (a whole index file) that answers `piece in haystack` as
    `in` does, for thousands of short pieces: each is looked for with `in` only where a
    hash of the haystack's windows of its length says it may occur. One pass per length
    instead of one per piece: a 12 MB index against 2,270 pieces, 86 s to about 1 s."""

    def __init__(self, data: str | bytes) -> None:
        self.data = data
        self.codes = self._codes(data)
        self.windows: dict[int, np.ndarray] = {}

    @staticmethod
    def _codes(data: str | bytes) -> np.ndarray:
        if isinstance(data, bytes):
            return np.frombuffer(data, dtype=np.uint8).astype(np.uint64)
        return np.frombuffer(data.encode("utf-32-le", "surrogatepass"), np.uint32).astype(np.uint64)

    @staticmethod
    def _hashes(codes: np.ndarray, length: int) -> np.ndarray:
        count = len(codes) - length + 1
        hashes = np.zeros(max(count, 0), dtype=np.uint64)
        for k in range(length):  # wraps modulo 2**64, the same for piece and window
            hashes = hashes * np.uint64(1_000_003) + codes[k : k + count]
        return hashes

    def __contains__(self, piece: str | bytes) -> bool:
        codes = self._codes(piece)
        if len(codes) not in self.windows:
            self.windows[len(codes)] = np.unique(self._hashes(self.codes, len(codes)))
        windows = self.windows[len(codes)]
        if len(codes) == 0 or len(windows) == 0:
            return piece in self.data  # type: ignore[operator]
        wanted = self._hashes(codes, len(codes))[0]
        at = int(np.searchsorted(windows, wanted))
        may = at < len(windows) and windows[at] == wanted
        return bool(may) and piece in self.data  # type: ignore[operator]


@pytest.mark.parametrize(
    ("name", "text", "secrets"), LEAKED_KINDS, ids=[c[0] for c in LEAKED_KINDS]
)
def test_no_piece_of_a_known_secret_kind_survives(
    name: str, text: str, secrets: tuple[str, ...]
) -> None:
    clean, found = redact(text)
    assert found, f"{name}: nothing redacted"
    for secret in secrets:
        assert secret in text
        survivors = [p for p in pieces(secret) if p in clean]
        assert not survivors, f"{name}: {survivors[:3]} survive in {clean!r}"


@pytest.mark.parametrize(
    "text",
    [
        "the password reset flow sends a token by mail",
        "commit 3f9a2c17e0d1c2b3a4f5e6d7c8b9a0f1e2d3c4b5 fixed the key rotation",
        "tokenizer: unicode61 porter",
        "- `token`: `string`, the bearer token to send",
        "password: `required`",
        "`api_key`: `${API_KEY}`",
        'TOKEN="${TOKEN:-}"',
        "API_TOKEN: `os.environ['API_TOKEN']`",
        "const tempPasswordKey = `temp_password:${email}`;",
        "| Gatekeeper | Secret Manager secret: `cloud-vault-sync-service` (holds the key) |",
        "password: ${DB_PASSWORD}",
        "api_key = os.environ['OPENAI_API_KEY']",
        "def get_token(self): return self.token_cache.lookup(name)",
        "session 7c1e4a52-9b3d-4f0e-8a61-2d5f9c3b7e14 and task-runner sk-abc",
        # A path, a number, or a name of a header, file or type is not a secret.
        "pwd=/home/dev/code/webshop",
        "pwd: /home/dev/code/webshop",
        "OLDPWD=/home/dev/code/webshop/src",
        "num_tokens: 123456789",
        "TOKEN_LIMIT=100000000",
        "passwd_file=/etc/passwd",
        "SECRET_KEY_FILE=/run/secrets/key",
        "token_type: bearer_token",
        "api_key_header_name = X-Api-Key",
        "password: required",
        "echo $PW | docker login --username dev --password-stdin registry.shop.dev",
        "http://localhost:5173/@vite/client and http://localhost:3000/@fs/src/main.ts",
        'headers = {"Authorization": f"Bearer {token}"}',
        "use Basic authentication with the --password option",
        "docker buildx build --secret id=npmrc,src=$HOME/.npmrc .",
        # Code that names secrets without holding one.
        "self.token_type = token_type",
        "per_token_latency_s = latency_s / token_length",
        "def getpass(prompt='Password: ', stream=None):",
        "private_key: Ed25519PrivateKey | Ed448PrivateKey",
        'KEY_HEADER = re.compile(r"(-----BEGIN RSA PRIVATE KEY-----)")',
        # Secrets another tool already hid or masked, and placeholder credentials in docs.
        "secret=[REDACTED]  api_key=[REDACTED_API_KEY]",
        "Token: gho_************************************",
        "git fetch http://user:pass@host/repo.git",
        # Near the kinds a second hostile run added.
        "the password is required for every login",
        "the password was reset.",
        "the password is user-defined and the password was Changed",
        "your password is too short: 8 characters or more",
        "pat = re.compile(r'[a-z]+')",
        "PATH=/usr/local/bin:/usr/bin",
        "pw_hash = bcrypt(pw)",
        "DEFAULT_BOT=gpt-4o-mini",
        "private_key_id: the id of the key, not the key",
        '["mysql", "-u", "root", "-p", "shop"]',
        '["docker", "login", "--password-stdin"]',
        "npm run build -- --port 8080",
        "    pw : rational number\n    x : indeterminate of the polynomial",
        # Near the kinds a third hostile run added.
        "api_token = self.settings.api_token",
        "API_TOKEN=config.API_TOKEN",
        "password: args.password",
        "token = response.json.access_token",
        "Cookie: a small file the browser keeps",
        "Set-Cookie: theme=dark; Path=/",
        "sudo -S reads the password from standard input",
        "echo hello | sudo tee /etc/motd",
        "echo $PASSWORD | sudo -S systemctl restart nginx",
        "the login page password field",
        "a machine learning password manager",
        "curl -u $API_USER:$API_TOKEN https://api.shop.dev",
        '{"auth": "required"}',
        "Note:All the tests passed at 12:34:56",
        "see RFC 6750:Authorization for bearer tokens",
        "the ratio is 123456789:A to B",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact(text) == (text, {})


@pytest.mark.parametrize(
    ("unit", "count"),
    [
        ("token=$(", 16_000),  # values that are no secret, each running to the end
        ("-----BEGIN PRIVATE KEY-----\nMIIEvAAAAAAAAAAAAAAAAAAAA\n", 8_000),  # no END
        ("://c:d", 20_000),  # URL passwords with no @ (after "x://a:")
        ("xsk-", 120_000),  # tokens glued to a word
        ("eyJ", 160_000),  # JWT starts with no second part
    ],
    ids=["placeholders", "key-headers", "url-passwords", "glued-tokens", "jwt-starts"],
)
def test_long_runs_of_anchors_cost_linear_time(unit: str, count: int) -> None:
    """Four times the text costs about four times the time, not sixteen. Compared with
    itself rather than with a clock, so a busy machine slows both sizes alike: each
    size's best of five runs, taken in turn, the smaller long enough (30 ms or more
    here) that a clock's jitter does not count. Linear measured 3.6 to 5.1 here (8.4
    once, best of three, on a machine running three test suites at once); the quadratic
    code this replaced, 12 to 18."""
    prefix = "x://a:" if unit == "://c:d" else ""
    small, large = prefix + unit * (count // 4), prefix + unit * count
    best = {small: float("inf"), large: float("inf")}
    for _ in range(5):
        for text in (small, large):
            start = time.perf_counter()
            redact(text)
            best[text] = min(best[text], time.perf_counter() - start)
    # Linear: 4 (less, where a fixed cost counts); quadratic: 16.
    assert best[large] / best[small] < 8, best.values()


def test_overlapping_matches_hide_their_union() -> None:
    """The widest match wins: a later match reaching further is not cut short."""
    pem = _pem("RSA ", _PEM_BODY)
    assert redact(f"PRIVATE_KEY={pem}\nnext") == (
        "PRIVATE_KEY=[REDACTED:private-key]\nnext",
        {"private-key": 1},
    )
    # The assignment's value stops at the space; the key block starting inside it does not.
    clean, found = redact(f"token=Zx9Qm2Lp7W{pem} done")
    assert clean == "token=[REDACTED:private-key] done" and sum(found.values()) == 1


def index_files(db: Path) -> list[Path]:
    """The index's own files (the database, its -wal and -shm), not the archive folder
    beside them, which holds the transcripts as they were written, by design."""
    return [p for p in db.parent.iterdir() if p.name.startswith(db.name) and p.is_file()]


def test_no_secret_reaches_any_byte_of_the_index(cli: CLI, tmp_path: Path) -> None:
    root = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    t = Transcript(session_id="5ec2e7aa-0000-4000-8000-000000000001", cwd="/home/dev/app")
    t.prompt(f"my key is {SECRETS['openai-key']} and {SECRETS['anthropic-key']}, why 401?")
    t.reply(f"Use the token {SECRETS['github-token']} only in CI, not {SECRETS['slack-token']}.")
    t.tool(
        "Bash",
        {"command": f"psql postgres://admin:{SECRETS['url-password']}@db.internal/app"},
        f"AWS_ACCESS_KEY_ID={SECRETS['aws-access-key']}\n"
        f"DB_PASSWORD={SECRETS['secret-assignment']}\n-----BEGIN RSA PRIVATE KEY-----\n"
        f"{SECRETS['private-key']}\n-----END RSA PRIVATE KEY-----",
    )
    t.prompt(f"stripe says {SECRETS['stripe-key']} and the session is {SECRETS['jwt']}")
    t.reply("Rotate all of them now.")
    t.title(f"debug 401 with {SECRETS['stripe-key']}")
    transcript = t.write(project_dir(root, "/home/dev/app"))
    report = cli.json("index")
    assert sum(report["redacted"].values()) >= len(SECRETS)

    db = Path(cli.env["FINDSESSION_DB"])
    stored = b"".join(p.read_bytes() for p in index_files(db))
    for kind, secret in SECRETS.items():
        assert secret.encode() not in stored, f"{kind} reached the index"
        assert secret.encode() in transcript.read_bytes()  # the transcript is untouched
    for secret in SECRETS.values():
        results = cli.json("search", secret)["results"]
        assert all(secret not in r["match"]["snippet"] for r in results)
    status = cli.json("status")
    assert status["redacted"]["github-token"] == 1 and status["redacted"]["private-key"] == 1
    shown = cli.run("read", "5ec2e7aa", "--tools").stdout
    assert "[REDACTED:openai-key]" in shown and SECRETS["openai-key"] not in shown
    assert "Rotate all of them now." in shown  # the rest of the text is intact
    raw = cli.run("read", "5ec2e7aa", "--tools", "--raw").stdout
    assert SECRETS["openai-key"] in raw and SECRETS["github-token"] in raw  # when asked
    assert "[REDACTED:" not in raw.split("turn 1", 1)[1]  # the header keeps the indexed title


def test_private_spans_and_private_sessions_stay_out(cli: CLI) -> None:
    root = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    folder = project_dir(root, "/home/dev/app")
    open_session = Transcript(session_id="0be10000-0000-4000-8000-000000000001")
    open_session.prompt(
        "deploy the invoicing service with <private>the Zanzibar Holdings contract"
        " terms</private> applied"
    ).reply("Deployed.")
    open_session.write(folder)
    hidden = Transcript(session_id="51de0000-0000-4000-8000-000000000002")
    hidden.prompt("first, how do I profile the importer?").reply("Use py-spy.")
    path = hidden.write(folder)
    agent = Transcript(
        session_id="51de0000-0000-4000-8000-000000000002", agent_id="a1b2c3d4e5f60718"
    )
    agent.prompt("profile the importer for the parent").reply("Hot loop in parse_row.")
    agent.write(folder / hidden.session_id / "subagents", "agent-a1b2c3d4e5f60718.jsonl")
    cli.run("index")
    assert cli.json("status")["sessions"] == 3  # before the marker: all indexed

    hidden.prompt("findsession:private now about the quarterly layoffs list").reply("Noted.")
    hidden.append_to(path)
    cli.run("index")
    hidden.prompt("more about the layoffs and severance").reply("Understood.")
    hidden.append_to(path)
    cli.run("index")

    db = Path(cli.env["FINDSESSION_DB"])
    stored = b"".join(p.read_bytes() for p in index_files(db))
    for word in (b"Zanzibar", b"layoffs", b"severance", b"profile the importer", b"parse_row"):
        assert word not in stored, word
    status = cli.json("status")
    assert status["sessions"] == 1 and status["redacted"]["private-span"] == 1
    hits = cli.json("search", "deploy invoicing")["results"]
    assert hits[0]["session"]["id"].startswith("0be1")
    assert "[private]" in cli.run("read", "0be1").stdout
    assert cli.run("read", "51de", check=False).returncode == 1


def test_forget_deletes_for_good_and_reclaims_space(cli: CLI) -> None:
    root = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    for n, cwd in enumerate(["/home/dev/acme", "/home/dev/acme/api", "/home/dev/other"]):
        t = Transcript(session_id=f"f0{n}00000-0000-4000-8000-00000000000{n}", cwd=cwd)
        for turn in range(30):
            t.prompt(f"quokka{n} budget question {turn}").reply("figures " * 200)
        t.write(project_dir(root, cwd))
    cli.run("index")
    db = Path(cli.env["FINDSESSION_DB"])
    out = cli.json("forget", "f0200000")
    assert out["forgotten"] == ["f0200000-0000-4000-8000-000000000002"]
    assert out["bytes_after"] < out["bytes_before"]
    forgotten = cli.run("forget", "--project", "/home/dev/acme").stderr
    assert "forgot 2 sessions" in forgotten
    cli.run("index")  # the transcripts are still there: nothing comes back
    assert cli.json("status")["sessions"] == 0
    stored = b"".join(p.read_bytes() for p in index_files(db))
    assert b"quokka" not in stored
    assert list(db.parent.glob(f"{db.name}.archive/*.zst")) == []  # the copies went too
    assert cli.run("forget", "nope", check=False).returncode == 1


def test_projects_excluded_in_the_config_are_not_indexed(cli: CLI, tmp_path: Path) -> None:
    root = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    for n, cwd in enumerate(["/home/dev/clients/acme/api", "/home/dev/own"]):
        t = Transcript(session_id=f"e{n}000000-0000-4000-8000-00000000000{n}", cwd=cwd)
        t.prompt(f"wombat question in {cwd}").reply("answer")
        t.write(project_dir(root, cwd))
    cli.run("index", "--no-embed")
    assert cli.json("status")["sessions"] == 2
    Path(cli.env["FINDSESSION_CONFIG"]).write_text('[privacy]\nexclude = ["/home/dev/clients"]\n')
    for path in root.rglob("*.jsonl"):  # touched, so the next run reads them again
        path.write_bytes(path.read_bytes() + b"\n")
    cli.run("index", "--no-embed")
    hits = cli.json("search", "wombat", "--mode", "keyword")["results"]
    assert [h["session"]["cwd"] for h in hits] == ["/home/dev/own"]
