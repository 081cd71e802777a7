"""Credentials in service configurations, CI logs and device code the key-name rules do not read.

* MongoDB connection strings with several hosts (``mongodb://user:pw@h1:27017,h2:27017/db``,
  MongoDB Connection String URI Format): the password (one host: :mod:`memctl.scrub.http`);
* CouchDB ``local.ini`` ``[admins]`` sections (``admin = <pw>``, CouchDB configuration docs):
  every value up to the next section, except an already hashed ``-pbkdf2-``/``-hashed-`` one;
* Maven ``settings.xml`` ``<password>``/``<passphrase>``/``<privateKey>`` elements (Maven
  Settings Reference) and any XML element named ``password``/``passwd``/``secret``;
* GitHub Actions ``::add-mask::<value>`` (Workflow commands docs): the value is a secret by the
  workflow's own word;
* Redis ``MONITOR`` output (``"AUTH" "<pw>"`` or ``"AUTH" "<user>" "<pw>"``, Redis docs);
* Apple app-specific passwords (four groups of four lower-case letters, Apple Support HT204397)
  given to ``altool``/``notarytool``/``-p``/``--password`` or said as an app-specific password;
* Wi-Fi joins in device code: MicroPython ``wlan.connect('ssid', '<pw>')``, CircuitPython
  ``wifi.radio.connect(ssid, pw)``, Arduino/ESP ``WiFi.begin("ssid", "<pw>")``.

Kind: ``password``. Placeholders stay (:func:`~memctl.scrub.detector.is_placeholder`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memctl.scrub.detector import Detector, Span, detector, is_placeholder

__all__ = ["SERVICE_CONFIG_DETECTORS"]

_MONGO = re.compile(r"mongodb(?:\+srv)?://(?P<user>[^:@/\s\"'\x00\[\]]{1,80}):(?P<value>[^@\s\"'\x00\[\]]{1,200})@[^/\s\"'\x00,]{1,120},")
_SECTION_ROW = re.compile(r"[ \t]*(?P<key>[^\s=;#\[][^=\n\x00]{0,60}?)[ \t]*=[ \t]*(?P<value>[^\n\x00]{1,200}?)[ \t]*$")
_XML = re.compile(
    r"<(?P<tag>password|passwd|passphrase|privateKey|secret|apiKey|api_key|token|storepass|keypass)>"
    r"(?P<value>[^<\x00]{1,200})</(?P=tag)>",
    re.IGNORECASE,
)
_MASK = re.compile(r"::add-mask::[ \t]*(?P<value>[^\s\"'\x00\\]{1,200})")
_REDIS_AUTH = re.compile(r"\"auth\"(?:[ \t]+\"[^\"\n\x00]{1,80}\")?[ \t]+\"(?P<value>[^\"\n\x00]{1,200})\"", re.IGNORECASE)
_APP_PASSWORD = re.compile(r"(?<![\w-])(?P<value>[a-z]{4}-[a-z]{4}-[a-z]{4}-[a-z]{4})(?![\w-])")
_APP_PASSWORD_GATES = ("altool", "notarytool", "app-specific", "app specific", "apple-id", "apple_id", "appleid")
_WIFI_JOIN = re.compile(
    r"(?:\.connect|WiFi\.begin|wifi\.begin|\.join)[ \t]*\([ \t]*(?:ssid[ \t]*=[ \t]*)?(?:[\"'][^\"'\n\x00]{1,64}[\"']|[\w.]{1,40})"
    r"[ \t]*,[ \t]*(?:password[ \t]*=[ \t]*|key[ \t]*=[ \t]*)?(?P<q>[\"'])(?P<value>[^\"'\n\x00]{8,63})(?P=q)"
)
_WIFI_GATES = ("wlan", "wifi", "sta_if", "sta.connect", "network.")


def _service_spans(text: str, lowered: str | None, gates: frozenset[str]) -> Iterator[Span]:
    if lowered is None:
        lowered = text.lower()
        if len(lowered) != len(text):
            return
    if "mongodb" in gates:
        pos = lowered.find("mongodb")
        while pos != -1:
            match = _MONGO.match(text, pos)
            if match is not None and not is_placeholder(match.group("value")):
                yield match.start("value"), match.end("value"), "password"
            pos = lowered.find("mongodb", pos + 7)
    if "[admins]" in gates:
        pos = lowered.find("[admins]")
        while pos != -1:
            start = text.find("\n", pos)
            while start != -1 and start + 1 < len(text):
                end = text.find("\n", start + 1)
                end = len(text) if end == -1 else end
                line = text[start + 1 : end]
                if line.lstrip().startswith("[") or "\x00" in line:
                    break
                row = _SECTION_ROW.match(text, start + 1, end)
                if row is not None:
                    value = row.group("value")
                    if not value.startswith(("-pbkdf2-", "-hashed-")) and not is_placeholder(value):
                        yield row.start("value"), row.end("value"), "password"
                elif line.strip() and not line.lstrip().startswith((";", "#")):
                    break
                start = end if end < len(text) else -1
            pos = lowered.find("[admins]", pos + 8)
    for literal in ("<password>", "<passwd>", "<passphrase>", "<privatekey>", "<secret>", "<apikey>", "<api_key>",
                    "<token>", "<storepass>", "<keypass>"):
        if literal in gates:
            pos = lowered.find(literal)
            while pos != -1:
                match = _XML.match(text, pos)
                if match is not None and not is_placeholder(match.group("value")) and not match.group("value").startswith("${"):
                    yield match.start("value"), match.end("value"), "password"
                pos = lowered.find(literal, pos + len(literal))
    if "::add-mask::" in gates:
        for match in _MASK.finditer(text):
            value = match.group("value")
            if not is_placeholder(value) and not value.startswith("${{"):
                yield match.start("value"), match.end("value"), "password"
    if '"auth"' in gates:
        pos = lowered.find('"auth"')
        while pos != -1:
            match = _REDIS_AUTH.match(text, pos)
            # MONITOR lines: a timestamp and [db client] before the command
            if match is not None and "]" in text[max(0, pos - 40) : pos] and not is_placeholder(match.group("value")):
                yield match.start("value"), match.end("value"), "password"
            pos = lowered.find('"auth"', pos + 6)
    if any(gate in gates for gate in _APP_PASSWORD_GATES):
        for match in _APP_PASSWORD.finditer(text):
            around = lowered[max(0, match.start() - 200) : match.start()]
            if any(gate in around for gate in _APP_PASSWORD_GATES) or around.rstrip().endswith(("-p", "--password", "password:", "password")):
                yield match.start("value"), match.end("value"), "password"
    if any(gate in gates for gate in _WIFI_GATES) and ("connect(" in lowered or "begin(" in lowered or "join(" in lowered):
        for word in ("connect(", "begin(", "join("):
            pos = lowered.find(word)
            while pos != -1:
                head = lowered.rfind("\n", max(0, pos - 60), pos) + 1 or max(0, pos - 60)
                near = lowered[max(0, pos - 300) : pos]
                if "wlan" in near or "wifi" in near or "sta" in near or "network" in near:
                    match = _WIFI_JOIN.search(text, head, min(len(text), pos + 200))
                    if match is not None and not is_placeholder(match.group("value")):
                        yield match.start("value"), match.end("value"), "password"
                pos = lowered.find(word, pos + len(word))


_LITERALS = tuple(sorted({"mongodb", "[admins]", "<password>", "<passwd>", "<passphrase>", "<privatekey>", "<secret>",
                          "<apikey>", "<api_key>", "<token>", "<storepass>", "<keypass>", "::add-mask::", '"auth"',
                          *_APP_PASSWORD_GATES, *_WIFI_GATES}))

SERVICE_CONFIG_DETECTORS: tuple[Detector, ...] = (
    detector(
        "password",
        finder=_service_spans,
        literals=_LITERALS,
        requires=_LITERALS,
        origin="memctl: MongoDB URIs, CouchDB [admins], Maven XML, add-mask, redis MONITOR, app passwords, Wi-Fi joins",
    ),
)
"""One finder for the kinds in the module docstring."""
