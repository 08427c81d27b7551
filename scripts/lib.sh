# Shared shell helpers of scripts/run.sh and scripts/test.sh (sourced, not run).
# Each ensure_* checks first and installs or starts only what is missing.

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    die "need root to run: $*"; fi
}

apt_install() {
  # Package lists may be empty on a fresh machine: update once, only when an install fails.
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1 \
    || { as_root apt-get update -qq >/dev/null && \
         as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null; }
}

# embedded_env: the settings of ./scripts/run.sh. DEBUG stays off (unless DEBUG=1 is exported):
# with it on, every 404 is Django's English technical page listing all URL patterns (a 500 its
# traceback), also for a Chinese user asking for an evaluation not shared with them; off, each
# is the portal's own translated page. Without DEBUG the portal needs a secret key: generated
# once into an untracked file (SECRET_KEY_FILE, .secret_key) and kept, so that sessions survive
# a restart. Static files come from WhiteNoise's finders (no collectstatic), and cookies and
# redirects work over plain HTTP on 127.0.0.1; e-mail goes to the console.
embedded_env() {
  local key_file="${SECRET_KEY_FILE:-.secret_key}"
  if [ -z "${SECRET_KEY:-}" ]; then
    if [ ! -s "$key_file" ]; then
      (umask 077 && head -c 48 /dev/urandom | base64 -w0 >"$key_file")
    fi
    SECRET_KEY=$(cat "$key_file")
  fi
  export SECRET_KEY
  export DEBUG="${DEBUG:-0}"
  export STATIC_MANIFEST="${STATIC_MANIFEST:-0}"
  # Stays empty (nothing is collected); WhiteNoise warns at every start when it is missing.
  mkdir -p "${STATIC_ROOT:-staticfiles}"
  export SECURE_SSL_REDIRECT="${SECURE_SSL_REDIRECT:-0}"
  export SESSION_COOKIE_SECURE="${SESSION_COOKIE_SECURE:-0}"
  export CSRF_COOKIE_SECURE="${CSRF_COOKIE_SECURE:-0}"
  export SECURE_HSTS_SECONDS="${SECURE_HSTS_SECONDS:-0}"
  export SECURE_HSTS_INCLUDE_SUBDOMAINS="${SECURE_HSTS_INCLUDE_SUBDOMAINS:-0}"
  export SECURE_HSTS_PRELOAD="${SECURE_HSTS_PRELOAD:-0}"
  export EMAIL_BACKEND="${EMAIL_BACKEND:-django.core.mail.backends.console.EmailBackend}"
}

pick_python() {
  for py in python3.13 python3.12 python3.11 python3; do
    if "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1; then
      echo "$py"; return 0
    fi
  done
  die "Python 3.11 or newer is required"
}

# ensure_venv REQUIREMENTS_FILE: create .venv when missing and install the pinned requirements
# (skipped when the requirements have not changed since the last install).
ensure_venv() {
  local req="$1" py stamp
  if [ ! -x .venv/bin/python ]; then
    py=$(pick_python)
    log "creating the virtualenv with $py"
    "$py" -m venv .venv 2>/dev/null || { apt_install python3-venv && "$py" -m venv .venv; } \
      || die "could not create .venv"
  fi
  stamp=".venv/.installed-$(cat requirements*.txt | sha256sum | cut -c1-16)-$(basename "$req")"
  if [ ! -f "$stamp" ]; then
    log "installing $req"
    .venv/bin/python -m pip install -qq --upgrade pip >/dev/null 2>&1 || true
    .venv/bin/python -m pip install -qq -r "$req" || die "pip install -r $req failed"
    touch "$stamp"
  fi
}

ensure_postgres() {
  if pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then return 0; fi
  log "starting PostgreSQL"
  if ! ls /etc/postgresql/*/main >/dev/null 2>&1; then
    apt_install postgresql postgresql-client || die "could not install PostgreSQL"
  fi
  local ver
  for ver in $(ls /etc/postgresql); do
    as_root pg_ctlcluster --skip-systemctl-redirect "$ver" main start 2>/dev/null || true
  done
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
  pg_isready -q -h 127.0.0.1 -p 5432 || die "PostgreSQL is not answering on 127.0.0.1:5432"
  # Where local auth is not trust, give the postgres role the password the tests use.
  if ! psql -h 127.0.0.1 -U postgres -c 'select 1' >/dev/null 2>&1; then
    as_root runuser -u postgres -- psql -qc "ALTER ROLE postgres PASSWORD 'postgres'" >/dev/null
  fi
}

redis_ping() {
  if command -v redis-cli >/dev/null; then
    [ "$(redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null)" = "PONG" ]
  else
    .venv/bin/python -c 'import redis; redis.Redis(host="127.0.0.1", port=6379).ping()' 2>/dev/null
  fi
}

ensure_redis() {
  if redis_ping; then return 0; fi
  log "starting Redis"
  command -v redis-server >/dev/null || apt_install redis-server || die "could not install Redis"
  # Exits 0 even when the port is taken: PING afterwards decides.
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
    --dir /tmp --logfile /tmp/gpuportal-redis.log >/dev/null
  for _ in $(seq 1 20); do redis_ping && return 0; sleep 0.5; done
  die "Redis is not answering on 127.0.0.1:6379"
}

ensure_chromium() {
  # A CJK font too: the browser tests switch the interface to Chinese and keep screenshots.
  # An emoji font: Chromium prints the report PDFs, and a rationale's emoji (🚀) would be an
  # empty box without one. Poppler's pdftotext and pdffonts read those PDFs back in the tests.
  if [ -x /usr/bin/chromium ] && fc-list 2>/dev/null | grep -qi "wenquanyi\|noto sans cjk" \
    && fc-list 2>/dev/null | grep -qi "noto color emoji" && command -v pdftotext >/dev/null; then
    return 0
  fi
  log "installing Debian's chromium, a CJK and an emoji font, and poppler-utils (for the tests)"
  apt_install chromium fonts-wqy-zenhei fonts-noto-color-emoji poppler-utils \
    || die "could not install chromium"
}

ensure_fio() {
  # The collector's tests run a real fio job against a temporary directory.
  command -v fio >/dev/null && return 0
  log "installing fio (the collector's storage benchmark)"
  apt_install fio || die "could not install fio"
}

ensure_ping() {
  # The collector's round-trip test pings loopback for real.
  command -v ping >/dev/null && return 0
  log "installing ping (the collector's round-trip probe)"
  apt_install iputils-ping || die "could not install ping"
}

ensure_nginx() {
  # Debian's nginx fronts gunicorn in the deployment tests and bench/soak.py; they start their
  # own nginx on a free loopback port, never the system service.
  command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] && return 0
  log "installing nginx (the buffering proxy in front of gunicorn)"
  apt_install nginx || die "could not install nginx"
}

ensure_gettext() {
  command -v msgfmt >/dev/null && return 0
  log "installing gettext (message catalogues)"
  apt_install gettext || die "could not install gettext"
}
