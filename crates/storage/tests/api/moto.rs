//! A real S3-compatible server for the suite: `moto_server` (PyPI
//! `moto[server]`, installed by `scripts/lib.sh`'s `ensure_moto`) on a free
//! loopback port, started once per test process, with a fresh bucket per
//! test. `PLINTH_STORAGE_TEST_BACKEND=s3` runs the suite against it; when
//! moto cannot start, the tests fail (they never skip).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use plinth_storage::S3Config;

/// Which byte store the suite runs against.
pub fn s3_selected() -> bool {
    match std::env::var("PLINTH_STORAGE_TEST_BACKEND").as_deref() {
        Ok("s3") => true,
        Ok("file") | Ok("") | Err(_) => false,
        Ok(other) => panic!("PLINTH_STORAGE_TEST_BACKEND must be file or s3, not {other:?}"),
    }
}

/// The Python that has moto: `PLINTH_MOTO_PYTHON`, else the venv that
/// `ensure_moto` may have made, else `python3`.
fn python() -> String {
    if let Ok(python) = std::env::var("PLINTH_MOTO_PYTHON") {
        return python;
    }
    if let Ok(home) = std::env::var("HOME") {
        let venv = format!("{home}/.cache/plinth/moto-venv/bin/python");
        if std::path::Path::new(&venv).exists() {
            return venv;
        }
    }
    "python3".to_owned()
}

/// The server lives as long as this test process: the wrapper exits when
/// its parent (this process) is gone.
const WRAPPER: &str = r#"
import os, sys, threading, time
parent = os.getppid()
def watch():
    while True:
        if os.getppid() != parent:
            os._exit(0)
        time.sleep(0.5)
threading.Thread(target=watch, daemon=True).start()
from moto.server import main
main(["-H", "127.0.0.1", "-p", sys.argv[1]])
"#;

struct Server {
    port: u16,
    _child: Mutex<Child>,
}

fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free loopback port")
            .port();
        let python = python();
        let mut child = Command::new(&python)
            .arg("-c")
            .arg(WRAPPER)
            .arg(port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot start moto_server with {python}: {e} (run scripts/test, or pip install 'moto[server]')")
            });
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                break;
            }
            if let Ok(Some(status)) = child.try_wait() {
                let mut err = String::new();
                if let Some(mut stderr) = child.stderr.take() {
                    stderr.read_to_string(&mut err).ok();
                }
                panic!(
                    "moto_server exited ({status}); is moto[server] installed for {python}? {err}"
                );
            }
            assert!(
                Instant::now() < deadline,
                "moto_server did not listen on {port} within 30 s"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        // stderr is not read from now on; do not let it fill up
        drop(child.stderr.take());
        Server {
            port,
            _child: Mutex::new(child),
        }
    })
}

/// One plain HTTP/1.1 exchange with moto (status, body).
fn exchange(method: &str, path: &str) -> (u16, String) {
    let port = server().port;
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("moto answers");
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    let text = String::from_utf8_lossy(&response).into_owned();
    let status = text.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

/// A new, empty bucket of its own for one test.
pub fn fresh_bucket() -> S3Config {
    let bucket = format!("plinth-{}", uuid::Uuid::new_v4().simple());
    let (status, body) = exchange("PUT", &format!("/{bucket}"));
    assert_eq!(status, 200, "creating bucket {bucket} in moto: {body}");
    S3Config {
        bucket,
        endpoint: Some(format!("http://127.0.0.1:{}", server().port)),
        region: Some("us-east-1".into()),
        access_key_id: Some("testing".into()),
        secret_access_key: Some("testing".into()),
        force_path_style: true,
        prefix: None,
    }
}

/// Every key in `bucket`, sorted (read straight from moto, not through the
/// code under test).
pub fn keys(bucket: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let mut path = format!("/{bucket}?list-type=2&max-keys=1000");
        if let Some(t) = &token {
            path.push_str("&continuation-token=");
            path.push_str(&percent_encode(t));
        }
        let (status, body) = exchange("GET", &path);
        assert_eq!(status, 200, "listing {bucket}: {body}");
        for piece in body.split("<Key>").skip(1) {
            if let Some((key, _)) = piece.split_once("</Key>") {
                out.push(xml_unescape(key));
            }
        }
        token = body
            .split_once("<NextContinuationToken>")
            .and_then(|(_, rest)| rest.split_once("</NextContinuationToken>"))
            .map(|(t, _)| xml_unescape(t));
        if token.is_none() {
            break;
        }
    }
    out.retain(|k| !k.ends_with('/'));
    out.sort();
    out
}

fn xml_unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}
