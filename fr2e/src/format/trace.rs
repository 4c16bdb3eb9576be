//! Virtual traces and function-body headers (`fr2e.md` A12).
//!
//! `vtrs` is a sequence of records of three SVLIs; the record number is the trace-table index, headers included. The
//! sign of the second field alone tells a trace (`b >= 0`) from a function-body header (`b < 0`), because "positive"
//! means non-negative and absolute VOP 0 or trace 0 cannot be negative (B75, D5). The model stores the decoded
//! meaning: header fields as magnitudes, trace starts as written (the first trace of a function holds minus its
//! absolute start, later ones an offset from it, B76).
//!
//! [`function_traces`] resolves a header to the VOP ranges of its traces and checks every rule of A12; both the
//! image reader and the image writer use it, so a model that writes always reads back.

use std::ops::Range;

use super::error::{ErrorKind, FormatError, WriteError};
use super::reader::Reader;
use super::vli::write_svli;

/// One `vtrs` record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TraceRecord {
    /// A normal trace: `n_ops` VOPs from a start given by `b_ops` (see [`function_traces`]), flags `tr_fl` (B78).
    Trace { b_ops: i64, n_ops: u64, flags: u64 },
    /// A function-body header: traces `b_vtr .. b_vtr + n_vtr` (`n_vtr >= 1`) of GBLD entry `gblid` (`>= 1`).
    Header { b_vtr: u64, n_vtr: u64, gblid: u64 },
}

/// Reads a `vtrs` payload; returns the records and the absolute offset of each.
pub fn read_traces(mut r: Reader<'_>) -> Result<(Vec<TraceRecord>, Vec<u64>), FormatError> {
    let mut records = Vec::new();
    let mut offsets = Vec::new();
    while !r.is_empty() {
        let at = r.offset();
        let (a, b, c) = (r.svli()?, r.svli()?, r.svli()?);
        let record = if b >= 0 {
            if c < 0 {
                return Err(FormatError::new(ErrorKind::NegativeTraceFlags { flags: c }, at));
            }
            TraceRecord::Trace { b_ops: a, n_ops: b as u64, flags: c as u64 }
        } else {
            if a > 0 || c >= 0 {
                return Err(FormatError::new(ErrorKind::InvalidFunctionHeader, at));
            }
            TraceRecord::Header { b_vtr: a.unsigned_abs(), n_vtr: b.unsigned_abs(), gblid: c.unsigned_abs() }
        };
        records.push(record);
        offsets.push(at);
    }
    Ok((records, offsets))
}

/// Encodes `records` as a `vtrs` payload.
pub fn write_traces(records: &[TraceRecord]) -> Result<Vec<u8>, WriteError> {
    let mut out = Vec::with_capacity(records.len() * 3);
    let signed =
        |what: &'static str, v: u64| i64::try_from(v).map_err(|_| WriteError::OutOfRange { what, value: v.into() });
    let negated = |what: &'static str, v: u64, min: u64| {
        0i64.checked_sub_unsigned(v).filter(|_| v >= min).ok_or(WriteError::OutOfRange { what, value: v.into() })
    };
    for record in records {
        let (a, b, c) = match *record {
            TraceRecord::Trace { b_ops, n_ops, flags } => {
                (b_ops, signed("trace length", n_ops)?, signed("trace flags", flags)?)
            }
            TraceRecord::Header { b_vtr, n_vtr, gblid } => (
                negated("header trace base", b_vtr, 0)?,
                negated("header trace count", n_vtr, 1)?,
                negated("header global index", gblid, 1)?,
            ),
        };
        write_svli(&mut out, a);
        write_svli(&mut out, b);
        write_svli(&mut out, c);
    }
    Ok(out)
}

/// Resolves header record `header` to the VOP range of each of its traces, in trace order, checking A12: the header
/// names records that exist and are normal traces; the first has `b_ops <= 0` and starts at VOP `-b_ops`, the others
/// have `b_ops >= 0` and start that far after it; every range lies inside a stream of `vop_count` VOPs (B76, B81).
/// On failure returns the kind and the number of the offending record.
pub fn function_traces(
    records: &[TraceRecord],
    header: u64,
    vop_count: u64,
) -> Result<Vec<Range<u64>>, (ErrorKind, u64)> {
    let Some(&TraceRecord::Header { b_vtr, n_vtr, .. }) = usize::try_from(header).ok().and_then(|h| records.get(h))
    else {
        return Err((ErrorKind::NotAFunctionHeader { record: header }, header));
    };
    let mut ranges = Vec::new();
    let mut base = 0u64;
    for k in 0..n_vtr {
        let record = b_vtr.checked_add(k).ok_or((ErrorKind::InvalidHeaderTrace { record: u64::MAX }, header))?;
        let Some(&TraceRecord::Trace { b_ops, n_ops, .. }) = usize::try_from(record).ok().and_then(|i| records.get(i))
        else {
            return Err((ErrorKind::InvalidHeaderTrace { record }, header));
        };
        let start = if k == 0 {
            if b_ops > 0 {
                return Err((ErrorKind::TraceStartSign { record }, record));
            }
            base = b_ops.unsigned_abs();
            Some(base)
        } else {
            if b_ops < 0 {
                return Err((ErrorKind::TraceStartSign { record }, record));
            }
            base.checked_add(b_ops as u64)
        };
        let range = start.and_then(|s| Some(s..s.checked_add(n_ops)?)).filter(|r| r.end <= vop_count);
        ranges.push(range.ok_or((ErrorKind::TraceOutOfRange { record, len: vop_count }, record))?);
    }
    Ok(ranges)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A function of two traces starting at VOP 5 (5 and 3 VOPs), then its header for GBLD entry 2, encoded as the
    /// canonical writer lays them out (A12): `-5 5 0`, `5 3 0`, `0 -2 -2`.
    #[test]
    fn function_body_header() {
        let records = [
            TraceRecord::Trace { b_ops: -5, n_ops: 5, flags: 0 },
            TraceRecord::Trace { b_ops: 5, n_ops: 3, flags: 0 },
            TraceRecord::Header { b_vtr: 0, n_vtr: 2, gblid: 2 },
        ];
        let bytes = write_traces(&records).unwrap();
        assert_eq!(bytes, [0x09, 0x0A, 0x00, 0x0A, 0x06, 0x00, 0x00, 0x03, 0x03]);
        let (back, offsets) = read_traces(Reader::new(&bytes, 100)).unwrap();
        assert_eq!(back, records);
        assert_eq!(offsets, [100, 103, 106]);
        assert_eq!(function_traces(&records, 2, 13).unwrap(), [5..10, 10..13]);
        assert_eq!(
            function_traces(&records, 2, 12).unwrap_err(),
            (ErrorKind::TraceOutOfRange { record: 1, len: 12 }, 1)
        );
        assert_eq!(function_traces(&records, 1, 13).unwrap_err(), (ErrorKind::NotAFunctionHeader { record: 1 }, 1));
        assert_eq!(function_traces(&records, 7, 13).unwrap_err().0, ErrorKind::NotAFunctionHeader { record: 7 });
    }

    #[test]
    fn function_at_vop_zero() {
        // B75/B76: a function starting at VOP 0 writes b_ops = 0, and trace 0 is b_vtr = 0.
        let records =
            [TraceRecord::Trace { b_ops: 0, n_ops: 2, flags: 1 }, TraceRecord::Header { b_vtr: 0, n_vtr: 1, gblid: 1 }];
        assert_eq!(function_traces(&records, 1, 2).unwrap(), std::iter::once(0..2).collect::<Vec<_>>());
        let bytes = write_traces(&records).unwrap();
        assert_eq!(bytes, [0x00, 0x04, 0x02, 0x00, 0x01, 0x01]);
    }

    #[test]
    fn malformed_records() {
        let read = |bytes: &[u8]| read_traces(Reader::new(bytes, 0)).map(|r| r.0);
        assert_eq!(read(&[0x00, 0x00, 0x01]).unwrap_err().kind, ErrorKind::NegativeTraceFlags { flags: -1 });
        assert_eq!(read(&[0x02, 0x01, 0x01]).unwrap_err().kind, ErrorKind::InvalidFunctionHeader);
        assert_eq!(read(&[0x00, 0x01, 0x00]).unwrap_err().kind, ErrorKind::InvalidFunctionHeader);
        assert_eq!(read(&[0x00, 0x00]).unwrap_err().kind, ErrorKind::UnexpectedEof { needed: 1 });
        let header_of = |records: &[TraceRecord]| function_traces(records, records.len() as u64 - 1, 100);
        let later_negative = [
            TraceRecord::Trace { b_ops: 0, n_ops: 1, flags: 0 },
            TraceRecord::Trace { b_ops: -1, n_ops: 1, flags: 0 },
            TraceRecord::Header { b_vtr: 0, n_vtr: 2, gblid: 1 },
        ];
        assert_eq!(header_of(&later_negative).unwrap_err(), (ErrorKind::TraceStartSign { record: 1 }, 1));
        let first_positive =
            [TraceRecord::Trace { b_ops: 1, n_ops: 1, flags: 0 }, TraceRecord::Header { b_vtr: 0, n_vtr: 1, gblid: 1 }];
        assert_eq!(header_of(&first_positive).unwrap_err(), (ErrorKind::TraceStartSign { record: 0 }, 0));
        let names_header = [TraceRecord::Header { b_vtr: 0, n_vtr: 1, gblid: 1 }];
        assert_eq!(header_of(&names_header).unwrap_err(), (ErrorKind::InvalidHeaderTrace { record: 0 }, 0));
        assert!(write_traces(&[TraceRecord::Header { b_vtr: 0, n_vtr: 0, gblid: 1 }]).is_err());
        assert!(write_traces(&[TraceRecord::Trace { b_ops: 0, n_ops: u64::MAX, flags: 0 }]).is_err());
        assert!(write_traces(&[TraceRecord::Header { b_vtr: 1 << 63, n_vtr: 1 << 63, gblid: 1 << 63 }]).is_ok());
    }
}
