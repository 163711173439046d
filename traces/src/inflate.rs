//! Gzip input inflated on a thread of its own while the caller reads what is ready, so
//! that reading a trace keeps two cores busy: inflating took about a third of the
//! instructions of reading SDSC-BLUE's whole log (see `docs/benchmarks.md`).

use std::io::{self, BufRead, Read};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use flate2::read::MultiGzDecoder;

/// The bytes inflated at a time.
const BLOCK: usize = 64 * 1024;

/// The blocks inflated ahead of the reader at most: the memory the thread may hold.
const AHEAD: usize = 4;

/// Runs `read` on the inflated bytes of the gzip stream `input` (of one or more members),
/// which another thread inflates as `read` goes.
///
/// `read` sees an I/O or gzip error where the single-threaded reader would, and the end
/// of the input after it; when `read` returns early, the thread stops at its next block.
pub(crate) fn inflated<T>(input: impl BufRead + Send, read: impl FnOnce(&mut Blocks) -> T) -> T {
    let (send, receive) = sync_channel(AHEAD);
    std::thread::scope(|scope| {
        scope.spawn(move || inflate(MultiGzDecoder::new(input), &send));
        // `blocks` is dropped before the scope waits for the thread, which then finds
        // no one to send to.
        let mut blocks = Blocks { receive, block: Vec::new(), at: 0 };
        read(&mut blocks)
    })
}

/// Sends `input`'s bytes a block at a time until its end, its first error, or a reader
/// that has gone.
fn inflate(mut input: impl Read, send: &SyncSender<io::Result<Vec<u8>>>) {
    loop {
        let mut block = vec![0; BLOCK];
        let sent = match input.read(&mut block) {
            Ok(0) => return,
            Ok(n) => {
                block.truncate(n);
                send.send(Ok(block))
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let _ = send.send(Err(e));
                return;
            }
        };
        if sent.is_err() {
            return;
        }
    }
}

/// The inflated bytes, as a buffered reader over the blocks the thread sends.
#[derive(Debug)]
pub struct Blocks {
    receive: Receiver<io::Result<Vec<u8>>>,
    block: Vec<u8>,
    at: usize,
}

impl BufRead for Blocks {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.at == self.block.len() {
            match self.receive.recv() {
                Ok(block) => (self.block, self.at) = (block?, 0),
                // The thread has ended: the input's end, or after its error.
                Err(_) => return Ok(&[]),
            }
        }
        Ok(&self.block[self.at..])
    }

    fn consume(&mut self, amount: usize) {
        self.at = (self.at + amount).min(self.block.len());
    }
}

impl Read for Blocks {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let ready = self.fill_buf()?;
        let n = ready.len().min(out.len());
        out[..n].copy_from_slice(&ready[..n]);
        self.consume(n);
        Ok(n)
    }
}
