"""The phone's first stop in the field (deploy/field.sh): a plain-http page that offers this
laptop's CA certificate, with a QR and the steps to trust it on Android and iOS.

    python deploy/field_page.py page ROOT_PEM CA_NAME WWW_DIR PAGE_URL GAME_URL
    python deploy/field_page.py qr URL       # a QR code in the terminal
"""

import hashlib
import html
import ssl
import sys
from pathlib import Path

import segno

CERT = "bijse-ca.crt"  # DER: both Android and iOS install it; served as application/x-x509-ca-cert

PAGE = """<!doctype html>
<html lang="cs">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Bij se: certifikát / certificate</title>
<style>
body {{ font: 17px/1.45 system-ui, sans-serif; margin: 0 auto; padding: 1rem; max-width: 40rem;
  background: #0f172a; color: #f8fafc; }}
h1 {{ font-size: 1.5rem; color: #4ade80; }} h2 {{ font-size: 1.15rem; margin-top: 1.4rem; }}
a.get {{ display: block; text-align: center; font-weight: 800; font-size: 1.2rem; padding: 0.9rem;
  border-radius: 12px; background: #4ade80; color: #000; text-decoration: none; }}
a {{ color: #93c5fd; }} li {{ margin: 0.3rem 0; }} b {{ color: #fde68a; }}
.qr {{ background: #fff; padding: 0.6rem; border-radius: 12px; width: 12rem; margin: 1rem auto; }}
.qr svg {{ width: 100%; height: auto; display: block; }}
code {{ overflow-wrap: anywhere; font-size: 0.8rem; }}
hr {{ margin: 2rem 0; border-color: #334155; }}
</style>
</head>
<body>
<main lang="cs" data-testid="cs">
<h1>Bij se: nejdřív certifikát</h1>
<p>Hra běží na tomto notebooku přes zabezpečené <b>https</b>, i bez internetu. Telefon mu musí
jednou začít důvěřovat: stáhni a nainstaluj jeho certifikát. Bez toho hra nepoběží bez signálu
a nepůjde nainstalovat.</p>
<p><a class="get" href="{cert}" download="{cert}" data-testid="download-ca">Stáhnout
certifikát</a></p>
<h2>Android</h2>
<ol>
<li>Klepni na <b>Stáhnout certifikát</b>.</li>
<li><b>Nastavení → Zabezpečení → Šifrování a pověření → Instalovat certifikát → Certifikát CA</b>
(jinde to bývá jinak: hledej v Nastavení „certifikát“).</li>
<li>Potvrď <b>Přesto instalovat</b> a vyber stažený soubor <b>{cert}</b>.</li>
</ol>
<h2>iPhone a iPad</h2>
<ol>
<li>Otevři tuto stránku v <b>Safari</b>, klepni na <b>Stáhnout certifikát</b> a pak na
<b>Povolit</b>.</li>
<li><b>Nastavení → Profil stažen → Instalovat</b> (zadej kód telefonu) → <b>Instalovat</b>.</li>
<li><b>Nastavení → Obecné → Informace → Nastavení důvěryhodnosti certifikátů</b>: zapni plnou
důvěru pro <b>{name}</b>.</li>
</ol>
<h2>Hotovo</h2>
<p>Naskenuj svou pozvánku, nebo otevři hru: <a href="{game}" data-testid="game-link">{game}</a>.
Sem se další telefony dostanou přes QR kód:</p>
<div class="qr" data-testid="page-qr">{qr}</div>
</main>
<hr>
<main lang="en" data-testid="en">
<h1>Bij se: the certificate first</h1>
<p>The game runs on this laptop over secure <b>https</b>, with no internet. Your phone must trust
it once: download and install its certificate. Without it the game cannot run with no signal and
cannot be installed.</p>
<p><a class="get" href="{cert}" download="{cert}">Download the certificate</a></p>
<h2>Android</h2>
<ol>
<li>Tap <b>Download the certificate</b>.</li>
<li><b>Settings → Security → Encryption &amp; credentials → Install a certificate → CA
certificate</b> (named differently on some phones: search Settings for “certificate”).</li>
<li>Confirm <b>Install anyway</b> and pick the downloaded file <b>{cert}</b>.</li>
</ol>
<h2>iPhone and iPad</h2>
<ol>
<li>Open this page in <b>Safari</b>, tap <b>Download the certificate</b>, then <b>Allow</b>.</li>
<li><b>Settings → Profile Downloaded → Install</b> (enter the passcode) → <b>Install</b>.</li>
<li><b>Settings → General → About → Certificate Trust Settings</b>: enable full trust for
<b>{name}</b>.</li>
</ol>
<h2>Done</h2>
<p>Scan your invite, or open the game: <a href="{game}">{game}</a>.</p>
</main>
<hr>
<p><small>SHA-256: <code data-testid="fingerprint">{fingerprint}</code></small></p>
</body>
</html>
"""


def page(root_pem: Path, name: str, www: Path, page_url: str, game_url: str) -> None:
    pem = root_pem.read_text()
    der = ssl.PEM_cert_to_DER_cert(pem)
    www.mkdir(parents=True, exist_ok=True)
    (www / CERT).write_bytes(der)
    fingerprint = hashlib.sha256(der).hexdigest().upper()
    text = PAGE.format(
        cert=CERT,
        name=html.escape(name),
        game=html.escape(game_url),
        qr=segno.make(page_url, error="m").svg_inline(scale=4),
        fingerprint=":".join(fingerprint[i : i + 2] for i in range(0, len(fingerprint), 2)),
    )
    (www / "index.html").write_text(text, encoding="utf-8")


def main(argv: list[str]) -> int:
    if argv[:1] == ["page"] and len(argv) == 6:
        page(Path(argv[1]), argv[2], Path(argv[3]), argv[4], argv[5])
        return 0
    if argv[:1] == ["qr"] and len(argv) == 2:
        segno.make(argv[1], error="m").terminal(compact=True)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
