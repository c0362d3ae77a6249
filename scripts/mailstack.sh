#!/usr/bin/env bash
# A throwaway local mail system for the end-to-end tests (root, no systemd):
#   Postfix  SMTP  127.0.0.1:$SMTP_PORT -> LMTP 127.0.0.1:$LMTP_PORT -> Dovecot -> Maildir
#   Dovecot  IMAP  127.0.0.1:$IMAP_PORT (plaintext LOGIN on loopback, or STARTTLS; users from a passwd file)
#   Dovecot  IMAPS 127.0.0.1:$IMAPS_PORT (TLS from the first byte)
#   Postfix  submission 127.0.0.1:$SUBMISSION_PORT (STARTTLS and AUTH required)
#   Postfix  smtps      127.0.0.1:$SMTPS_PORT      (TLS from the first byte, AUTH required)
# TLS uses a throwaway CA made at each start ($DIR/tls/ca.crt; the server certificate
# names localhost and 127.0.0.1); AUTH is checked by Dovecot as Postfix's SASL server.
# Everything (configs, queues, mail, logs) lives under one directory; /etc is never touched.
# OAuth2: IMAP and submission also take XOAUTH2 and OAUTHBEARER for every user, with an
# HS256 JWT signed by the key in $DIR/oauth2/hs256.key (base64, new at each start) whose
# `sub` is the user and whose `exp` has not passed; Dovecot checks it locally.
#
# usage: scripts/mailstack.sh install|start|stop|status
#        scripts/mailstack.sh pause postfix|dovecot    (stop one daemon, keeping its config,
#        scripts/mailstack.sh resume postfix|dovecot    queue and mail; for outage tests)
#        scripts/mailstack.sh kick USER   (ends USER's IMAP sessions, as a server dropping
#                                         one client's connection; the rest goes on)
# env:   MAILSTACK_DIR        default /tmp/dopis-test-mail
#        MAILSTACK_SMTP_PORT  default 2525
#        MAILSTACK_IMAP_PORT  default 1143
#        MAILSTACK_LMTP_PORT  default 2424
#        MAILSTACK_IMAPS_PORT default 1993
#        MAILSTACK_SUBMISSION_PORT default 1587
#        MAILSTACK_SMTPS_PORT default 1465
#        MAILSTACK_DOMAINS    default "chess.test players.test"
#        MAILSTACK_USERS      default "chess@chess.test alice@players.test bob@players.test carol@players.test"
#        MAILSTACK_PASSWORD   default secret
# Besides the listed users, any t-NAME@<test domain> exists on first use (same password),
# so each test can have a mailbox of its own. Plus-addresses (chess+g1.tok@chess.test)
# deliver to the user (chess@chess.test) with Delivered-To keeping the plus address.
# Dash subaddresses (t-NAME-g1.tok@chess.test) and any address at NAME.catch.test (a
# catch-all domain) deliver to t-NAME@chess.test too, as '-' providers and catch-alls do.
# Unknown users at a test domain are refused at RCPT (5xx), and so is any other domain.
set -euo pipefail

D=${MAILSTACK_DIR:-/tmp/dopis-test-mail}
SMTP_PORT=${MAILSTACK_SMTP_PORT:-2525}
IMAP_PORT=${MAILSTACK_IMAP_PORT:-1143}
LMTP_PORT=${MAILSTACK_LMTP_PORT:-2424}
IMAPS_PORT=${MAILSTACK_IMAPS_PORT:-1993}
SUBMISSION_PORT=${MAILSTACK_SUBMISSION_PORT:-1587}
SMTPS_PORT=${MAILSTACK_SMTPS_PORT:-1465}
MAIL_DOMAINS=${MAILSTACK_DOMAINS:-"chess.test players.test"}
MAIL_USERS=${MAILSTACK_USERS:-"chess@chess.test alice@players.test bob@players.test carol@players.test"}
MAIL_PASSWORD=${MAILSTACK_PASSWORD:-secret}
HERE=$(cd "$(dirname "$0")" && pwd)/mailstack
# postfix, dovecot and useradd live in sbin, which a non-login PATH may lack
export PATH="$PATH:/usr/sbin:/sbin"

install_pkgs() {
    if command -v dovecot >/dev/null && [ -x /usr/lib/dovecot/lmtp ] && command -v postfix >/dev/null &&
       command -v openssl >/dev/null; then
        return 0
    fi
    echo "mailstack: installing postfix, dovecot and openssl (Debian packages)..." >&2
    export DEBIAN_FRONTEND=noninteractive
    # without this preseed the postfix package asks which kind of mail system to set up
    echo "postfix postfix/main_mailer_type select No configuration" | debconf-set-selections
    { apt-get update -qq && apt-get install -y -q --no-install-recommends \
        dovecot-imapd dovecot-lmtpd postfix openssl; } >/tmp/dopis-mailstack-apt.log 2>&1 \
        || { tail -n 30 /tmp/dopis-mailstack-apt.log >&2; return 1; }
}

# postfix(1) prints its errors only to a tty and there is no syslog here:
# on failure, re-run under script(1) so the reason becomes visible.
pf() { postfix -c "$D/postfix" "$@" </dev/null >/dev/null 2>&1 ||
       { script -qec "postfix -c $D/postfix $*" /dev/null </dev/null >&2; return 1; }; }

render() { # fill in the @NAME@ placeholders of a template
    sed -e "s|@D@|$D|g" -e "s|@SMTP_PORT@|$SMTP_PORT|g" -e "s|@IMAP_PORT@|$IMAP_PORT|g" \
        -e "s|@LMTP_PORT@|$LMTP_PORT|g" -e "s|@MAIL_DOMAINS@|$MAIL_DOMAINS|g" \
        -e "s|@IMAPS_PORT@|$IMAPS_PORT|g" -e "s|@SUBMISSION_PORT@|$SUBMISSION_PORT|g" \
        -e "s|@SMTPS_PORT@|$SMTPS_PORT|g" \
        -e "s|@MAIL_PASSWORD@|$MAIL_PASSWORD|g" -e "s|@VMAIL_UID@|$(id -u vmail)|g" "$1" > "$2"
}

alive() { [ -f "$1" ] && kill -0 "$(tr -d ' \n' < "$1")" 2>/dev/null; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# A throwaway CA and a server certificate it signs, new at each start: tests
# trust $D/tls/ca.crt, and nothing else does.
make_certificates() {
    local t="$D/tls"
    rm -rf "$t"; mkdir -p "$t"
    {
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 \
            -subj "/CN=dopis test CA" -keyout "$t/ca.key" -out "$t/ca.crt" \
            -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
        openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
            -subj "/CN=localhost" -keyout "$t/server.key" -out "$t/server.csr"
        printf '%s\n' "subjectAltName=DNS:localhost,IP:127.0.0.1,DNS:mx.chess.test" \
            "basicConstraints=critical,CA:FALSE" "keyUsage=critical,digitalSignature" \
            "extendedKeyUsage=serverAuth" > "$t/server.ext"
        openssl x509 -req -in "$t/server.csr" -CA "$t/ca.crt" -CAkey "$t/ca.key" -CAcreateserial \
            -days 30 -extfile "$t/server.ext" -out "$t/server.crt"
    } >"$D/log/openssl.log" 2>&1 || { cat "$D/log/openssl.log" >&2; return 1; }
    chmod 600 "$t/ca.key" "$t/server.key"
    chmod 644 "$t/ca.crt" "$t/server.crt"
}

# The key OAuth2 test tokens are signed with (HS256), new at each start:
# Dovecot reads it from its key dict (default/HS256/default: no azp, no kid),
# the tests from $D/oauth2/hs256.key. Both hold it base64-encoded.
make_oauth2_key() {
    local k="$D/oauth2"
    rm -rf "$k"; mkdir -p "$k/keys/default/HS256"
    head -c 32 /dev/urandom | base64 -w0 > "$k/hs256.key"
    cp "$k/hs256.key" "$k/keys/default/HS256/default"
    # Dovecot's auth process (user dovecot) reads the dict
    chgrp -R dovecot "$k"; chmod -R u=rwX,g=rX,o= "$k"; chmod 755 "$k"; chmod 644 "$k/hs256.key"
}

start() {
    install_pkgs
    if alive "$D/run/dovecot/master.pid" || alive "$D/spool/postfix/pid/master.pid"; then
        stop >/dev/null                           # idempotent: restart if already up
    fi
    for p in "$SMTP_PORT" "$IMAP_PORT" "$LMTP_PORT" "$IMAPS_PORT" "$SUBMISSION_PORT" "$SMTPS_PORT"; do
        if port_open "$p"; then
            echo "mailstack: port $p is already in use; set MAILSTACK_*_PORT to free ones" >&2; return 1
        fi
    done
    # Dovecot refuses to deliver as root
    id vmail >/dev/null 2>&1 || useradd --system --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin vmail
    mkdir -p "$D"/{dovecot,postfix,log,mail,run/dovecot,state/dovecot,spool/postfix,lib/postfix}
    chmod 755 "$D"                                # postfix and vmail must traverse it
    chown vmail:vmail "$D/mail"
    chown postfix:postfix "$D/lib/postfix"
    make_certificates
    # Dovecot puts Postfix's SASL socket here before `postfix check` would make it
    install -d -o postfix -g root -m 700 "$D/spool/postfix/private"

    # --- dovecot ---
    render "$HERE/dovecot.conf" "$D/dovecot/dovecot.conf"
    render "$HERE/dovecot-oauth2.conf.ext" "$D/dovecot/dovecot-oauth2.conf.ext"
    make_oauth2_key
    : > "$D/dovecot/users"
    for u in $MAIL_USERS; do echo "$u:{PLAIN}$MAIL_PASSWORD::::::" >> "$D/dovecot/users"; done
    chmod 640 "$D/dovecot/users"; chgrp dovecot "$D/dovecot/users"
    # daemons must not inherit our stdout/stderr, or a caller reading them through a pipe hangs
    dovecot -c "$D/dovecot/dovecot.conf" </dev/null >"$D/log/dovecot-start.log" 2>&1 \
        || { cat "$D/log/dovecot-start.log" >&2; return 1; }

    # --- postfix ---
    render "$HERE/main.cf" "$D/postfix/main.cf"
    render "$HERE/master.cf" "$D/postfix/master.cf"
    : > "$D/postfix/vmailbox"
    for u in $MAIL_USERS; do echo "$u ok" >> "$D/postfix/vmailbox"; done
    local alternatives; alternatives=$(echo "$MAIL_DOMAINS" | xargs -n1 | sed 's/\./\\./g' | paste -sd'|' -)
    echo "/^t-[a-z0-9-]+(\\+[^@]*)?@($alternatives)\$/ ok" > "$D/postfix/scratch.regexp"
    # Providers as they are, for the scratch users: a '-' subaddress
    # (t-NAME-TAG@chess.test, the tag holding a dot) and a catch-all domain
    # (anything@NAME.catch.test) both reach t-NAME@chess.test.
    cat > "$D/postfix/providers.regexp" <<'REGEXP'
/^(t-[a-z0-9]+)-[a-z0-9]+\.[a-z0-9]+@chess\.test$/ ${1}@chess.test
/^[^@]+@([a-z0-9]+)\.catch\.test$/ t-${1}@chess.test
REGEXP
    echo '/\.catch\.test$/ ok' > "$D/postfix/catchall-domains.regexp"
    # `postfix check` creates the queue directories with the right owners
    pf check
    pf start

    # --- wait until both answer ---
    for _ in $(seq 1 100); do
        if port_open "$SMTP_PORT" && port_open "$IMAP_PORT" && port_open "$IMAPS_PORT" &&
           port_open "$SUBMISSION_PORT" && port_open "$SMTPS_PORT"; then
            echo "mailstack up: smtp=127.0.0.1:$SMTP_PORT imap=127.0.0.1:$IMAP_PORT" \
                 "imaps=127.0.0.1:$IMAPS_PORT submission=127.0.0.1:$SUBMISSION_PORT" \
                 "smtps=127.0.0.1:$SMTPS_PORT ca=$D/tls/ca.crt dir=$D"; return 0
        fi
        sleep 0.1
    done
    echo "mailstack failed to start; logs in $D/log" >&2; tail -n 20 "$D"/log/* >&2; return 1
}

stop() {
    if [ -f "$D/postfix/main.cf" ]; then postfix -c "$D/postfix" stop </dev/null >/dev/null 2>&1 || true; fi
    if [ -f "$D/dovecot/dovecot.conf" ]; then doveadm -c "$D/dovecot/dovecot.conf" stop </dev/null >/dev/null 2>&1 || true; fi
    for _ in $(seq 1 50); do
        alive "$D/run/dovecot/master.pid" || alive "$D/spool/postfix/pid/master.pid" || break
        sleep 0.1
    done
    echo "mailstack stopped (data kept in $D; rm -rf it to reset)"
}

# The ports each daemon listens on: pause/resume wait until all are closed/open.
ports_of() {
    case "$1" in
        postfix) echo "$SMTP_PORT $SUBMISSION_PORT $SMTPS_PORT" ;;
        dovecot) echo "$IMAP_PORT $IMAPS_PORT $LMTP_PORT" ;;
    esac
}

# Ends the given processes (those still there): TERM, then KILL after 5 s.
end_processes() {
    [ $# -gt 0 ] || return 0
    kill -TERM "$@" 2>/dev/null || true
    for _ in $(seq 1 50); do
        local left=""
        for p in "$@"; do kill -0 "$p" 2>/dev/null && left=1; done
        [ -z "$left" ] && return 0
        sleep 0.1
    done
    kill -KILL "$@" 2>/dev/null || true
}

# Stops one daemon of a stack that `start` made, keeping everything else
# (config, Postfix's queue, the mail): what a crashed or restarted mail
# server looks like to dopis. Returns once its ports are closed.
pause() {
    local what=$1 pidfile
    case "$what" in
        postfix) pidfile="$D/spool/postfix/pid/master.pid"
                 postfix -c "$D/postfix" stop </dev/null >/dev/null 2>&1 || true ;;
        dovecot) pidfile="$D/run/dovecot/master.pid"
                 # Its client sessions (IMAP, IDLE included) outlive the master
                 # for a while here, though shutdown_clients is on: end them
                 # too (by pid: other stacks run processes of the same name),
                 # as a stopped server would.
                 local sessions=""
                 if alive "$pidfile"; then sessions=$(ps -o pid= --ppid "$(tr -d ' \n' < "$pidfile")" || true); fi
                 doveadm -c "$D/dovecot/dovecot.conf" stop </dev/null >/dev/null 2>&1 || true
                 for _ in $(seq 1 50); do alive "$pidfile" || break; sleep 0.1; done
                 end_processes $sessions ;;
    esac
    for _ in $(seq 1 200); do
        local open=""
        for p in $(ports_of "$what"); do port_open "$p" && open=$p; done
        if [ -z "$open" ] && ! alive "$pidfile"; then echo "mailstack: $what paused"; return 0; fi
        sleep 0.1
    done
    echo "mailstack: $what did not stop within 20 s" >&2; return 1
}

# Starts again a daemon `pause` stopped, with the same config and data.
# Returns once its ports answer.
resume() {
    local what=$1
    case "$what" in
        postfix) pf start ;;
        dovecot) dovecot -c "$D/dovecot/dovecot.conf" </dev/null >"$D/log/dovecot-start.log" 2>&1 \
                     || { cat "$D/log/dovecot-start.log" >&2; return 1; } ;;
    esac
    for _ in $(seq 1 200); do
        local closed=""
        for p in $(ports_of "$what"); do port_open "$p" || closed=$p; done
        if [ -z "$closed" ]; then echo "mailstack: $what resumed"; return 0; fi
        sleep 0.1
    done
    echo "mailstack: $what did not start within 20 s; logs in $D/log" >&2; tail -n 20 "$D"/log/* >&2; return 1
}

# Ends the IMAP sessions of one user (doveadm kick): what a dropped
# connection looks like to that client, while every other session and
# test goes on.
kick() {
    local user=$1
    doveadm -c "$D/dovecot/dovecot.conf" kick "$user" </dev/null
}

status() {
    local rc=0
    if alive "$D/spool/postfix/pid/master.pid"; then echo "postfix is running (smtp 127.0.0.1:$SMTP_PORT)"; else echo "postfix is not running"; rc=1; fi
    if alive "$D/run/dovecot/master.pid"; then echo "dovecot is running (imap 127.0.0.1:$IMAP_PORT)"; else echo "dovecot is not running"; rc=1; fi
    return $rc
}

case "${1:-}" in
    install) install_pkgs ;;
    start) start ;;
    stop) stop ;;
    status) status ;;
    kick)
        [ -n "${2:-}" ] || { echo "usage: $0 kick USER" >&2; exit 2; }
        kick "$2" ;;
    pause|resume)
        case "${2:-}" in
            postfix|dovecot) "$1" "$2" ;;
            *) echo "usage: $0 $1 postfix|dovecot" >&2; exit 2 ;;
        esac ;;
    *) echo "usage: $0 install|start|stop|status|pause postfix|dovecot|resume postfix|dovecot|kick USER" >&2; exit 2 ;;
esac
