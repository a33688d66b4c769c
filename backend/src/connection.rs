//! Tells a request when its client has gone, so that costly work for it (the spreadsheet
//! engine's workers) stops at once.
//!
//! hyper notices an HTTP/1.1 client that hangs up while its request is served (it reads the
//! connection's end), but poem keeps polling the request's future to completion after that. So
//! the connection itself is watched: each accepted connection gets a token, cancelled when a read
//! finds its end or fails, and every request on it carries the token (`Gone`). Over HTTP/2, hyper
//! drops a request's future itself when its stream is reset.

use std::{
    collections::HashMap,
    io,
    pin::Pin,
    sync::{LazyLock, Mutex},
    task::{Context, Poll},
};

use poem::{
    Endpoint, Request,
    listener::Acceptor,
    web::{LocalAddr, RemoteAddr},
};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio_util::sync::CancellationToken;

/// Cancelled when the request's connection has ended.
#[derive(Clone, Default)]
pub struct Gone(pub CancellationToken);

type Key = (String, String);

/// The tokens of the open connections, by their local and remote addresses.
static OPEN: LazyLock<Mutex<HashMap<Key, CancellationToken>>> = LazyLock::new(Mutex::default);

fn key(local: &LocalAddr, remote: &RemoteAddr) -> Key {
    (local.to_string(), remote.to_string())
}

/// An acceptor whose connections cancel their token when they end.
pub struct Watched<A>(pub A);

impl<A: Acceptor> Acceptor for Watched<A> {
    type Io = WatchedIo<A::Io>;

    fn local_addr(&self) -> Vec<LocalAddr> {
        self.0.local_addr()
    }

    async fn accept(&mut self) -> io::Result<(Self::Io, LocalAddr, RemoteAddr, poem::http::uri::Scheme)> {
        let (io, local, remote, scheme) = self.0.accept().await?;
        let key = key(&local, &remote);
        let gone = CancellationToken::new();
        OPEN.lock().expect("connections lock").insert(key.clone(), gone.clone());
        Ok((WatchedIo { io, gone, key }, local, remote, scheme))
    }
}

pub struct WatchedIo<T> {
    io: T,
    gone: CancellationToken,
    key: Key,
}

impl<T> Drop for WatchedIo<T> {
    fn drop(&mut self) {
        self.gone.cancel();
        let mut open = OPEN.lock().expect("connections lock");
        if open.get(&self.key).is_some_and(|t| t.is_cancelled()) {
            open.remove(&self.key);
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for WatchedIo<T> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.io).poll_read(cx, buf);
        let ended = match &polled {
            Poll::Ready(Ok(())) => buf.filled().len() == before && buf.remaining() > 0,
            Poll::Ready(Err(_)) => true,
            Poll::Pending => false,
        };
        if ended {
            self.gone.cancel();
        }
        polled
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for WatchedIo<T> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }

    fn poll_write_vectored(mut self: Pin<&mut Self>, cx: &mut Context<'_>, bufs: &[io::IoSlice<'_>]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
}

/// Gives each request its connection's `Gone` (a request from elsewhere, a test's, gets one that
/// never fires).
pub async fn attach<E: Endpoint>(ep: E, mut req: Request) -> poem::Result<E::Output> {
    let gone = OPEN.lock().expect("connections lock").get(&key(req.local_addr(), req.remote_addr())).cloned().unwrap_or_default();
    req.extensions_mut().insert(Gone(gone));
    ep.call(req).await
}
