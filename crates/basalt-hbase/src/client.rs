//! A minimal blocking client of HBase's RPC, for tests, benchmarks and tools: one socket,
//! one service, one call at a time. It is not an HBase client library (no region lookup,
//! no retries): callers name regions themselves.

use crate::pb;
use crate::wire::{self, Limits};
use crate::RpcError;
use bytes::Bytes;
use prost::Message;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// What a call can fail with: the socket, or the server's exception.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    #[error(transparent)]
    Io(#[from] io::Error),
    #[error("{0}")]
    Remote(RpcError),
    #[error("answer to call {got}, not {want}")]
    WrongCall { want: u32, got: u32 },
}

/// A byte stream a client talks over: a socket, or a TLS session on one.
pub trait Duplex: Read + Write + Send {}

impl<T: Read + Write + Send> Duplex for T {}

pub struct RpcClient {
    stream: Box<dyn Duplex>,
    next_id: u32,
    /// The cell block of the last answer (empty when it had none).
    last_cells: Bytes,
}

impl RpcClient {
    /// Connects to `addr` and opens `service` (`ClientService`, `MasterService`, ...).
    pub fn connect(addr: SocketAddr, service: &str) -> io::Result<Self> {
        Self::connect_with_codec(addr, service, None)
    }

    /// `connect`, naming the cell-block codec class `codec` (such as
    /// [`crate::cellblock::KEY_VALUE_CODEC`]): answers then carry their result cells in a
    /// cell block, read with [`RpcClient::last_cells`].
    pub fn connect_with_codec(
        addr: SocketAddr,
        service: &str,
        codec: Option<&str>,
    ) -> io::Result<Self> {
        Self::over(Box::new(Self::dial(addr)?), service, codec)
    }

    /// `connect` over TLS, trusting what `tls` trusts (and presenting its certificate, if
    /// it has one: a server verifying client certificates takes its name as the user).
    pub fn connect_tls(
        addr: SocketAddr,
        service: &str,
        tls: &basalt_net::tls::ClientTls,
    ) -> io::Result<Self> {
        let session = tls.connect_blocking(&addr.ip().to_string(), Self::dial(addr)?)?;
        Self::over(Box::new(session), service, None)
    }

    fn dial(addr: SocketAddr) -> io::Result<TcpStream> {
        let stream = TcpStream::connect(addr)?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(Duration::from_secs(30)))?;
        Ok(stream)
    }

    fn over(mut stream: Box<dyn Duplex>, service: &str, codec: Option<&str>) -> io::Result<Self> {
        stream.write_all(&wire::encode_connection_preface_with_codec(
            service, "basalt", codec,
        ))?;
        Ok(Self {
            stream,
            next_id: 1,
            last_cells: Bytes::new(),
        })
    }

    /// The cell block of the last answer (empty when it had none).
    pub fn last_cells(&self) -> &Bytes {
        &self.last_cells
    }

    pub fn stream(&mut self) -> &mut dyn Duplex {
        self.stream.as_mut()
    }

    /// Reads one answer frame: its header and the response message's bytes.
    pub fn read_answer(stream: &mut impl Read) -> io::Result<(pb::ResponseHeader, Bytes)> {
        Self::read_answer_with_cells(stream).map(|(header, message, _)| (header, message))
    }

    /// Reads one answer frame: its header, the response message and the cell block.
    pub fn read_answer_with_cells(
        stream: &mut (impl Read + ?Sized),
    ) -> io::Result<(pb::ResponseHeader, Bytes, Bytes)> {
        let mut len = [0u8; 4];
        stream.read_exact(&mut len)?;
        let len = wire::frame_len(len, "an answer", Limits::default().frame_max)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        let mut frame = vec![0u8; len];
        stream.read_exact(&mut frame)?;
        wire::decode_answer_with_cells(&frame)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }

    /// Calls `method` with `request` and a cell block (empty for none).
    pub fn call_with_cells(
        &mut self,
        method: &str,
        request: &impl Message,
        cells: &[u8],
    ) -> Result<Bytes, CallError> {
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        self.stream
            .write_all(&wire::encode_call(id, method, request, cells))?;
        let (header, message, cells) = Self::read_answer_with_cells(self.stream.as_mut())?;
        self.last_cells = cells;
        let got = header.call_id.unwrap_or(0);
        // Call id -1: the server's fatal answer to the connection (then it closes).
        if got != id && !(got == u32::MAX && header.exception.is_some()) {
            return Err(CallError::WrongCall { want: id, got });
        }
        match header.exception {
            Some(e) => Err(CallError::Remote(RpcError {
                class: e.exception_class_name.unwrap_or_default(),
                message: e.stack_trace.unwrap_or_default(),
                do_not_retry: e.do_not_retry.unwrap_or(false),
            })),
            None => Ok(message),
        }
    }

    pub fn call(&mut self, method: &str, request: &impl Message) -> Result<Bytes, CallError> {
        self.call_with_cells(method, request, &[])
    }

    /// Calls `method` and decodes the answer as `M`.
    pub fn ask<M: Message + Default>(
        &mut self,
        method: &str,
        request: &impl Message,
    ) -> Result<M, CallError> {
        let bytes = self.call(method, request)?;
        M::decode(bytes).map_err(|e| CallError::Io(io::Error::new(io::ErrorKind::InvalidData, e)))
    }
}
