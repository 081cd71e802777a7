"""Credentials given by position to database drivers and client constructors, and Go DSNs.

Forms (argument order from each API's reference):

* Python DB-API drivers: ``pymysql.connect(host, user, password, database)`` (PyMySQL),
  ``MySQLdb.connect(host, user, passwd, db)`` (mysqlclient), ``pymssql.connect(server, user,
  password, database)``, ``psycopg2.connect(…)`` when given positional strings,
  ``cx_Oracle.connect(user, password, dsn)`` / ``oracledb.connect(user, password, dsn)``;
  ``ftplib.FTP(host, user, passwd)`` / ``FTP_TLS``; ``redis.Redis(host, port, db, password)``;
  ``HTTPBasicAuth(user, password)`` / ``HTTPDigestAuth`` and ``auth=(user, password)`` (Requests);
* Java JDBC ``DriverManager.getConnection(url, user, password)`` and
  ``DataSource.getConnection(user, password)``;
* PHP ``new PDO(dsn, user, password)``, ``mysqli_connect(host, user, password, db)``,
  ``new mysqli(host, user, password, db)``, ``mysql_connect(host, user, password)``;
* Node ``new Sequelize(database, user, password, options)``;
* SDK clients given an account id and its secret: Twilio ``Client(account_sid, auth_token)``
  (Python, PHP ``new Client``, Ruby ``Client.new``, C# ``TwilioClient.Init``, Java
  ``Twilio.init``, Node ``twilio(sid, token)``/``require("twilio")(sid, token)``), Plivo
  ``RestClient(auth_id, auth_token)``, Algolia ``algoliasearch(app_id, api_key)``/
  ``SearchClient.create``, MessageBird ``messagebird(access_key)``: only a credential-shaped
  literal (16+ characters, random-looking or hex), so ``Client("localhost", "admin")`` stays;
* other languages' drivers and clients: Perl DBI ``DBI->connect($dsn, $user, $password)``, MySQL
  Connector/C++ ``driver->connect(host, user, password)`` and the C API ``mysql_real_connect(conn, host,
  user, password, …)``, MicroPython/CircuitPython/Arduino ``wlan.connect(ssid, key)``/``WiFi.begin(ssid,
  pass)``, Paho MQTT ``username_pw_set(user, password)``, lua-resty-redis ``red:auth(password)``;
* Go ``database/sql`` DSNs of go-sql-driver/mysql: ``user:password@tcp(host:port)/db``,
  ``@unix(/path)``, ``@/dbname``.

Only a quoted string literal at the password's position is reported (kind ``password``); a
variable, an empty string or a placeholder (``"<password>"``, ``"${DB_PASS}"``, ``"changeme"``)
stays. Arguments are split at top-level commas within 600 characters of the call.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.scrub.detector import Detector, Span, credential_shaped, detector, is_placeholder

__all__ = ["POSITIONAL_CALL_DETECTORS"]

# lowercased call text (what the gate index finds) -> index of the password among the arguments;
# -1: the last of two or three arguments (JDBC's two overloads).
_CALLS: dict[str, int] = {
    "pymysql.connect(": 2, "mysqldb.connect(": 2, "pymssql.connect(": 2, "psycopg2.connect(": 2,
    "cx_oracle.connect(": 1, "oracledb.connect(": 1, "ftp(": 2, "ftp_tls(": 2,
    "redis.redis(": 3, "strictredis(": 3, "httpbasicauth(": 1, "httpdigestauth(": 1, "auth=(": 1, "auth = (": 1,
    "getconnection(": -1, "new pdo(": 2, "mysqli_connect(": 2, "new mysqli(": 2, "mysql_connect(": 2,
    "new sequelize(": 2, "new \\pdo(": 2, "new pdo (": 2,
    # SDK clients built from an account id and its secret (Twilio's Client(account_sid, auth_token)
    # in Python, PHP and C#, twilio(sid, token) in Node, Twilio.init in Java, Plivo's RestClient,
    # Algolia's algoliasearch(app_id, api_key)): only a credential-shaped literal (_SHAPED_CALLS).
    "client(": 1, "client.new(": 1, "twilio.init(": 1, "twilioclient.init(": 1, "twilio(": 1,
    "(\"twilio\")(": 1, "('twilio')(": 1, "algoliasearch(": 1, "searchclient.create(": 1,
    "messagebird(": 0,
    # Drivers of other languages: Perl DBI ``DBI->connect($dsn, $user, $password, \%attr)``, MySQL Connector/C++
    # ``driver->connect(host, user, password)``, the C API ``mysql_real_connect(mysql, host, user, passwd, db, …)``;
    # MicroPython/CircuitPython/Arduino Wi-Fi joins ``wlan.connect(ssid, key)``, ``wifi.radio.connect(ssid,
    # password)``, ``WiFi.begin(ssid, pass)``; Eclipse Paho ``username_pw_set(username, password)``;
    # lua-resty-redis ``red:auth(password)`` and node-redis ``client.auth(password)``.
    "dbi->connect(": 2, "dbi->connect_cached(": 2, "driver->connect(": 2, "instance()->connect(": 2,
    "mysql_real_connect(": 3, "wlan.connect(": 1, "sta_if.connect(": 1, "sta.connect(": 1, "station.connect(": 1,
    "radio.connect(": 1, "wifi.begin(": 1, "username_pw_set(": 1, ":auth(": 0, "redis.auth(": 0,
}
_SHAPED_CALLS = frozenset({"client(", "client.new(", "twilio.init(", "twilioclient.init(", "twilio(", "(\"twilio\")(",
                           "('twilio')(", "algoliasearch(", "searchclient.create(", "messagebird("})
_STRING = re.compile(r"""[ \t\r\n]*(?P<q>["'`])(?P<value>[^"'`\\\n\x00]*)(?P=q)[ \t\r\n]*""")
_GO_DSN_HOSTS = ("@tcp(", "@unix(", "@udp(", "@/")
_GO_USERINFO = re.compile(r"""(?:^|(?<=["'`=\s(]))[\w.%+-]{1,64}:(?P<value>[^\s"'`@:/\x00]{1,128})$""")


def _arguments(text: str, open_paren: int) -> list[tuple[int, int]]:
    """``(start, end)`` of each top-level argument after ``text[open_paren] == "("``; when the
    call does not close within 600 characters, the arguments that ended with a comma."""
    out: list[tuple[int, int]] = []
    depth, quote, start = 0, "", open_paren + 1
    for pos in range(open_paren + 1, min(len(text), open_paren + 600)):
        char = text[pos]
        if quote:
            if char == "\\":
                continue
            if char == quote and text[pos - 1] != "\\":
                quote = ""
        elif char in "\"'`":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                out.append((start, pos))
                return out
            depth -= 1
        elif char == "," and depth == 0:
            out.append((start, pos))
            start = pos + 1
        elif char == "\x00":
            return out
    return out  # not closed (cut, or an options object follows): the arguments that ended with a comma


def _call_spans(text: str, lowered: str, gates: frozenset[str]) -> Iterator[Span]:
    for call, index in _CALLS.items():
        if call not in gates:
            continue
        pos = lowered.find(call)
        while pos != -1:
            if call in {"ftp(", "getconnection("} and pos > 0 and (lowered[pos - 1].isalnum() or lowered[pos - 1] == "_"):
                pos = lowered.find(call, pos + 1)
                continue  # sftp(, mygetconnection(
            args = _arguments(text, pos + len(call) - 1)
            wanted = len(args) - 1 if index == -1 and len(args) in {2, 3} else index
            if 0 <= wanted < len(args) and all("=" not in text[a:b].split("'")[0].split('"')[0] for a, b in args[: wanted + 1]):
                start, end = args[wanted]
                literal = _STRING.fullmatch(text, start, end)
                if literal is not None:
                    value = literal.group("value")
                    shaped = call not in _SHAPED_CALLS or credential_shaped(value, min_len=16)
                    if len(value) >= 3 and shaped and not is_placeholder(value) and value.strip() == value:
                        yield literal.start("value"), literal.end("value"), "password"
            pos = lowered.find(call, pos + len(call))


def _go_dsn_spans(text: str, lowered: str, gates: frozenset[str]) -> Iterator[Span]:
    for host in _GO_DSN_HOSTS:
        if host not in gates:
            continue
        pos = lowered.find(host)
        while pos != -1:
            if host != "@/" or (pos + 2 < len(text) and (text[pos + 2].isalnum() or text[pos + 2] in "\"'`?")):
                userinfo = _GO_USERINFO.search(text, max(0, pos - 200), pos)
                if userinfo is not None and not is_placeholder(userinfo.group("value")):
                    yield userinfo.start("value"), userinfo.end("value"), "password"
            pos = lowered.find(host, pos + len(host))


def _positional_call_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    if lowered is None:
        lowered = text.lower()
        if len(lowered) != len(text):
            return
    yield from _call_spans(text, lowered, gates)
    yield from _go_dsn_spans(text, lowered, gates)


_LITERALS = tuple(sorted({*_CALLS, *_GO_DSN_HOSTS}))

POSITIONAL_CALL_DETECTORS: tuple[Detector, ...] = (
    detector(
        "password",
        finder=_positional_call_spans,
        literals=_LITERALS,
        requires=_LITERALS,
        origin="memctl: driver and client APIs' positional credentials (see memctl.scrub.positional_calls)",
    ),
)
"""One finder for the calls and DSNs in the module docstring."""
