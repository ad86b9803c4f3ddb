//! Peers that stall, for the tests of nodes killed mid-work: an SMTP server and a webhook
//! receiver on 127.0.0.1:0 that take the first message whole but never answer it (so it is
//! never accepted), a TCP proxy that can be frozen (for the bucket), and which process holds
//! the client end of a connection.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};

/// What a stalling peer saw: the exchanges it stalled (client address, what was sent) and
/// those it answered (what was sent).
#[derive(Default)]
struct Seen {
    stalled: Mutex<Vec<(SocketAddr, String)>>,
    answered: Mutex<Vec<String>>,
    /// Exchanges still to stall.
    to_stall: AtomicUsize,
}

impl Seen {
    /// Whether the exchange just read from `peer` is one to stall (and records it as such).
    fn stall(&self, peer: SocketAddr, sent: &str) -> bool {
        let stall = self
            .to_stall
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok();
        match stall {
            true => self.stalled.lock().unwrap().push((peer, sent.to_string())),
            false => self.answered.lock().unwrap().push(sent.to_string()),
        }
        stall
    }
}

/// A server on 127.0.0.1:0 that runs `converse` on each connection until dropped.
struct Serving {
    addr: SocketAddr,
    seen: Arc<Seen>,
    task: JoinHandle<()>,
}

impl Serving {
    async fn start<F, Fut>(stalls: usize, converse: F) -> Serving
    where
        F: Fn(TcpStream, SocketAddr, Arc<Seen>) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = std::io::Result<()>> + Send + 'static,
    {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Seen {
            to_stall: AtomicUsize::new(stalls),
            ..Seen::default()
        });
        let s = seen.clone();
        let task = tokio::spawn(async move {
            // Dropped with this task: every conversation ends with the server.
            let mut conversations = JoinSet::new();
            while let Ok((sock, peer)) = listener.accept().await {
                conversations.spawn(converse(sock, peer, s.clone()));
            }
        });
        Serving { addr, seen, task }
    }

    /// Waits (up to `within`) for the first stalled exchange: the client's address.
    async fn first_stalled(&self, within: Duration) -> SocketAddr {
        let deadline = Instant::now() + within;
        loop {
            if let Some((peer, _)) = self.seen.stalled.lock().unwrap().first() {
                return *peer;
            }
            assert!(
                Instant::now() < deadline,
                "nothing stalled within {within:?}"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// An SMTP server that accepts every message but the first `stalls`: those it reads whole
/// (up to the final dot) and never answers, so they are never accepted.
pub struct StallingSmtp(Serving);

impl StallingSmtp {
    pub async fn start(stalls: usize) -> StallingSmtp {
        StallingSmtp(Serving::start(stalls, smtp_conversation).await)
    }

    /// `--smtp-url` for it.
    pub fn url(&self) -> String {
        format!("smtp://{}?tls=none", self.0.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.0.addr
    }

    /// The messages accepted (answered 250 after their data), raw.
    pub fn accepted(&self) -> Vec<String> {
        self.0.seen.answered.lock().unwrap().clone()
    }

    /// The messages read but never answered, raw.
    pub fn stalled(&self) -> Vec<String> {
        let stalled = self.0.seen.stalled.lock().unwrap();
        stalled.iter().map(|(_, m)| m.clone()).collect()
    }

    /// Waits for the first stalled message: the address of the client that sent it.
    pub async fn first_stalled(&self, within: Duration) -> SocketAddr {
        self.0.first_stalled(within).await
    }
}

/// One SMTP conversation: every command is fine, the data of a message is read to its dot.
async fn smtp_conversation(
    sock: TcpStream,
    peer: SocketAddr,
    seen: Arc<Seen>,
) -> std::io::Result<()> {
    let (read, mut write) = sock.into_split();
    let mut read = BufReader::new(read);
    write.write_all(b"220 stalling ESMTP\r\n").await?;
    let mut line = String::new();
    loop {
        line.clear();
        if read.read_line(&mut line).await? == 0 {
            return Ok(());
        }
        let verb = line.get(..4).unwrap_or_default().to_ascii_uppercase();
        let reply: &[u8] = match verb.as_str() {
            "DATA" => {
                write.write_all(b"354 end with a dot\r\n").await?;
                let mut message = String::new();
                loop {
                    line.clear();
                    if read.read_line(&mut line).await? == 0 {
                        return Ok(());
                    }
                    if line == ".\r\n" {
                        break;
                    }
                    message.push_str(&line);
                }
                if seen.stall(peer, &message) {
                    // Holds the connection open, never saying whether the message was taken.
                    std::future::pending::<()>().await;
                }
                b"250 accepted\r\n"
            }
            "QUIT" => {
                write.write_all(b"221 bye\r\n").await?;
                return Ok(());
            }
            _ => b"250 ok\r\n",
        };
        write.write_all(reply).await?;
    }
}

/// A webhook receiver that answers 200 to every request but the first `stalls`: those it
/// reads whole and never answers.
pub struct StallingReceiver(Serving);

impl StallingReceiver {
    pub async fn start(stalls: usize) -> StallingReceiver {
        StallingReceiver(Serving::start(stalls, http_exchange).await)
    }

    pub fn url(&self) -> String {
        format!("http://{}/hook", self.0.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.0.addr
    }

    /// The requests answered 200, head and body.
    pub fn answered(&self) -> Vec<String> {
        self.0.seen.answered.lock().unwrap().clone()
    }

    /// The requests read but never answered, head and body.
    pub fn stalled(&self) -> Vec<String> {
        let stalled = self.0.seen.stalled.lock().unwrap();
        stalled.iter().map(|(_, m)| m.clone()).collect()
    }

    pub async fn first_stalled(&self, within: Duration) -> SocketAddr {
        self.0.first_stalled(within).await
    }
}

/// The value of header `name` in a request's text.
pub fn header<'a>(request: &'a str, name: &str) -> Option<&'a str> {
    let head = request.split("\r\n\r\n").next()?;
    head.lines().find_map(|l| {
        let (n, v) = l.split_once(':')?;
        n.trim().eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

/// One HTTP request (head and `content-length` bytes of body), answered 200 unless stalled.
async fn http_exchange(
    mut sock: TcpStream,
    peer: SocketAddr,
    seen: Arc<Seen>,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = sock.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&buf);
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length: usize = header(head, "content-length")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            if body.len() >= length {
                break;
            }
        }
    }
    let request = String::from_utf8_lossy(&buf).to_string();
    if seen.stall(peer, &request) {
        std::future::pending::<()>().await;
    }
    sock.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
        .await?;
    sock.shutdown().await
}

/// A TCP proxy on 127.0.0.1:0 to `target`. Frozen, it holds every byte clients send (on new
/// connections and open ones alike) until thawed, and counts the reads it held.
pub struct FreezingProxy {
    pub addr: SocketAddr,
    frozen: Arc<tokio::sync::watch::Sender<bool>>,
    held: Arc<AtomicUsize>,
    task: JoinHandle<()>,
}

impl FreezingProxy {
    pub async fn start(target: SocketAddr) -> FreezingProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let frozen = Arc::new(tokio::sync::watch::Sender::new(false));
        let held = Arc::new(AtomicUsize::new(0));
        let (f, h) = (frozen.clone(), held.clone());
        let task = tokio::spawn(async move {
            let mut connections = JoinSet::new();
            while let Ok((client, _)) = listener.accept().await {
                let (frozen, held) = (f.subscribe(), h.clone());
                connections.spawn(async move {
                    let Ok(server) = TcpStream::connect(target).await else {
                        return;
                    };
                    let (mut from_client, mut to_client) = client.into_split();
                    let (mut from_server, mut to_server) = server.into_split();
                    let up = forward(&mut from_client, &mut to_server, frozen, held);
                    let down = tokio::io::copy(&mut from_server, &mut to_client);
                    let _ = tokio::join!(up, down);
                });
            }
        });
        FreezingProxy {
            addr,
            frozen,
            held,
            task,
        }
    }

    pub fn freeze(&self, frozen: bool) {
        self.frozen.send_replace(frozen);
    }

    /// Reads from clients held while frozen.
    pub fn held(&self) -> usize {
        self.held.load(Ordering::SeqCst)
    }
}

impl Drop for FreezingProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Client to server, each read held while `frozen`.
async fn forward(
    from: &mut tokio::net::tcp::OwnedReadHalf,
    to: &mut tokio::net::tcp::OwnedWriteHalf,
    mut frozen: tokio::sync::watch::Receiver<bool>,
    held: Arc<AtomicUsize>,
) -> std::io::Result<()> {
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = from.read(&mut chunk).await?;
        if n == 0 {
            return to.shutdown().await;
        }
        if *frozen.borrow() {
            held.fetch_add(1, Ordering::SeqCst);
            let _ = frozen.wait_for(|f| !*f).await;
        }
        to.write_all(&chunk[..n]).await?;
    }
}

/// Whether process `pid` holds the client end of the TCP connection from `client` to
/// `server` (IPv4): the socket's inode from /proc/net/tcp among the process's descriptors.
pub fn holds_connection(pid: u32, client: SocketAddr, server: SocketAddr) -> bool {
    let hex = |a: SocketAddr| match a {
        SocketAddr::V4(v4) => format!(
            "{:08X}:{:04X}",
            u32::from_le_bytes(v4.ip().octets()),
            v4.port()
        ),
        SocketAddr::V6(_) => String::new(),
    };
    let (local, remote) = (hex(client), hex(server));
    let table = std::fs::read_to_string("/proc/net/tcp").unwrap_or_default();
    let Some(inode) = table.lines().find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        (f.len() > 9 && f[1] == local && f[2] == remote).then(|| f[9].to_string())
    }) else {
        return false;
    };
    let socket = format!("socket:[{inode}]");
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.filter_map(Result::ok)
        .filter_map(|fd| std::fs::read_link(fd.path()).ok())
        .any(|link| link.as_os_str() == socket.as_str())
}
