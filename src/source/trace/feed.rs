//! Records that arrive a batch at a time, from a live stream, read into one trace ([`TraceFeed`]).

use std::path::Path;

use super::{
    Loading, TraceCx, TraceFile, TraceFormat, TraceLoad, TraceLoadError, TraceOptions, finish,
    read_error, read_format,
};

/// Records that arrive a batch at a time (a live stream) read into one trace: only the trace's entries (16
/// bytes a key and second) are kept, not the records, so a long watch of a busy table stays small. Each batch
/// is read as `format` by the same reader as a file; the batches together are one [`TraceFile`].
pub struct TraceFeed {
    st: Loading,
    opts: TraceOptions,
    file: TraceFile,
    format: TraceFormat,
}

impl TraceFeed {
    /// A feed named `name` (in messages and [`TraceFile::path`]) of records in `format`.
    pub fn new(name: &Path, format: TraceFormat, opts: TraceOptions) -> Self {
        let mut file = TraceFile::new(name);
        file.format = Some(format);
        file.chosen = "live";
        let mut st = Loading::new();
        // The batches are one file: their distinct keys are counted together.
        st.builder.begin_file();
        Self {
            st,
            opts,
            file,
            format,
        }
    }

    /// Reads one batch (the bytes a file of `format` would hold); an empty batch is nothing.
    pub fn add(&mut self, bytes: &[u8]) -> Result<(), TraceLoadError> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        let path = self.file.path.clone();
        let mut cx = TraceCx {
            path: &path,
            opts: &self.opts,
            builder: &mut self.st.builder,
            file: &mut self.file,
            observed: &mut self.st.observed,
            covered: &mut self.st.covered,
            progress: None,
        };
        let read = read_format(&mut cx, self.format, bytes)
            .and_then(|()| Ok(cx.builder.end_file()?))
            .map_err(|e| read_error(e, &path));
        self.file.keys = self.st.builder.file_keys();
        read.map(|_| ())
    }

    /// Records read so far.
    pub fn records(&self) -> u64 {
        self.file.records
    }

    /// The trace of every batch so far (a copy: the feed goes on).
    pub fn snapshot(&self) -> Result<TraceLoad, TraceLoadError> {
        let mut st = self.st.clone();
        st.files.push(self.file.clone());
        finish(st, &self.opts, &[])
    }
}
