//! The join of a run array (FAISS's `I`: one row of ranked doc ints per query, negative
//! entries padding) to its judgments, row by row (`prf_join_rows`).
//!
//! Each kept cell (a non-negative id of a row whose slot is not -1) becomes one output row:
//! its row's slot, its doc int, its grade (`UNJUDGED` when the row's judgments do not hold
//! it), and whether its doc int appears again in its row. Whether it is judged is not written:
//! its grade says it (a judgment's grade is never `UNJUDGED`). A row's judgments are its slice
//! of `gold_docs` (ascending, distinct): a cell costs a binary search there, and a lookup in a
//! small table of the row's ids for its repeats. Rows are shared among the threads in
//! contiguous runs; a first pass counts each run's kept cells, so that every thread writes
//! straight into its part of the caller's arrays.
//!
//! Slots and doc ints are written as int32 when the caller asks (`code_bytes` 4, when both
//! fit: 17 bytes a cell instead of 25, which is most of what a call touches of fresh memory),
//! else as int64; a doc int beyond int32 then stops the join (the caller's numpy join runs).

use std::ffi::c_void;

/// A cell's grade when its doc is not judged for its row (prfeval's `UNJUDGED`).
pub const UNJUDGED: i64 = i64::MIN;

/// The inputs and outputs of `prf_join_rows`, by name (see `prfeval._io.native_join`).
#[repr(C)]
pub struct JoinRows {
    /// Ids, `n_rows` rows of `n_cols`, row-major (a C-contiguous int64 array).
    pub ids: *const i64,
    pub n_rows: usize,
    pub n_cols: usize,
    /// Per row: its slot, or -1 (its cells are skipped).
    pub row_slot: *const i64,
    /// Per row r: its judgments are `gold_docs[gold_offsets[r]..gold_offsets[r + 1]]`.
    pub gold_offsets: *const i64,
    pub gold_docs: *const i64,
    pub gold_grades: *const i64,
    pub threads: usize,
    /// Outputs, each of `capacity` entries, at least the kept cells (the evaluated rows'
    /// cells are enough: the pages past the kept ones are never written).
    pub capacity: usize,
    /// The width of `out_slot` and `out_doc`: 4 (int32) or 8 (int64).
    pub code_bytes: usize,
    pub out_slot: *mut c_void,
    pub out_doc: *mut c_void,
    pub out_grade: *mut i64,
    pub out_repeated: *mut u8,
    /// Per row (`n_rows` entries): how many cells it kept (0 for a row skipped).
    pub out_counts: *mut i64,
}

/// Borrowed views of a `JoinRows`' inputs.
pub struct Input<'a> {
    pub ids: &'a [i64],
    pub n_cols: usize,
    pub row_slot: &'a [i64],
    pub gold_offsets: &'a [i64],
    pub gold_docs: &'a [i64],
    pub gold_grades: &'a [i64],
}

/// An output integer type for slots and doc ints: int32 or int64.
pub trait Code: Copy + Send {
    /// `v` in this type, or `None` when it does not fit.
    fn narrow(v: i64) -> Option<Self>;
}

impl Code for i64 {
    #[inline(always)]
    fn narrow(v: i64) -> Option<i64> {
        Some(v)
    }
}

impl Code for i32 {
    #[inline(always)]
    fn narrow(v: i64) -> Option<i32> {
        i32::try_from(v).ok()
    }
}

/// One output cell's fields, by slice.
pub struct Output<'a, C> {
    pub slot: &'a mut [C],
    pub doc: &'a mut [C],
    pub grade: &'a mut [i64],
    pub repeated: &'a mut [u8],
    /// The rows' kept cells, one entry a row (of the rows this output is for).
    pub counts: &'a mut [i64],
}

/// How many cells rows `a..b` keep.
pub fn count(input: &Input, a: usize, b: usize) -> usize {
    let mut n = 0;
    for r in a..b {
        if input.row_slot[r] >= 0 {
            n += input.ids[r * input.n_cols..(r + 1) * input.n_cols].iter().filter(|&&d| d >= 0).count();
        }
    }
    n
}

/// Join rows `a..b` into `out` (exactly their kept cells); `false` when a slot or a doc int
/// does not fit `C`.
pub fn fill<C: Code>(input: &Input, a: usize, b: usize, out: Output<C>) -> bool {
    let mut at = 0;
    let mut seen = Seen::new(input.n_cols);
    for r in a..b {
        let begin = at;
        out.counts[r - a] = 0;
        let Some(slot) = (if input.row_slot[r] < 0 { continue } else { C::narrow(input.row_slot[r]) }) else {
            return false;
        };
        let row = &input.ids[r * input.n_cols..(r + 1) * input.n_cols];
        let (ga, gb) = (input.gold_offsets[r] as usize, input.gold_offsets[r + 1] as usize);
        let docs = &input.gold_docs[ga..gb];
        seen.begin();
        for &d in row {
            if d < 0 {
                continue;
            }
            let Some(code) = C::narrow(d) else { return false };
            out.slot[at] = slot;
            out.doc[at] = code;
            out.grade[at] = match docs.binary_search(&d) {
                Ok(i) => input.gold_grades[ga + i],
                Err(_) => UNJUDGED,
            };
            out.repeated[at] = 0;
            if let Some(first) = seen.insert(d, at) {
                out.repeated[first] = 1;
                out.repeated[at] = 1;
            }
            at += 1;
        }
        out.counts[r - a] = (at - begin) as i64;
    }
    true
}

/// The ids met so far in the current row, by hash (linear probing), with the place of each
/// one's first cell: a repeat costs one lookup, not a sort of the row. An entry belongs to
/// the current row when its `gen` is the table's, so nothing is cleared between rows.
pub struct Seen {
    keys: Vec<i64>,
    places: Vec<usize>,
    gens: Vec<u32>,
    gen: u32,
    mask: usize,
}

impl Seen {
    pub fn new(n_cols: usize) -> Seen {
        let cap = (2 * n_cols).next_power_of_two().max(16);
        Seen { keys: vec![0; cap], places: vec![0; cap], gens: vec![0; cap], gen: 0, mask: cap - 1 }
    }

    /// Start a new row.
    pub fn begin(&mut self) {
        self.gen = self.gen.wrapping_add(1);
        if self.gen == 0 {
            self.gens.iter_mut().for_each(|g| *g = 0);
            self.gen = 1;
        }
    }

    /// Add `key`, met at `place`; if the row met it before, the place where it first did.
    #[inline(always)]
    pub fn insert(&mut self, key: i64, place: usize) -> Option<usize> {
        let mut at = ((key as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & self.mask;
        loop {
            if self.gens[at] != self.gen {
                self.gens[at] = self.gen;
                self.keys[at] = key;
                self.places[at] = place;
                return None;
            }
            if self.keys[at] == key {
                return Some(self.places[at]);
            }
            at = (at + 1) & self.mask;
        }
    }
}

/// Contiguous runs of rows, one a thread, and each run's first output cell.
pub fn plan(input: &Input, n_rows: usize, threads: usize) -> (Vec<usize>, Vec<usize>) {
    let threads = threads.clamp(1, 64).min(n_rows.max(1));
    let bounds: Vec<usize> = (0..=threads).map(|t| t * n_rows / threads).collect();
    let counts: Vec<usize> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads).map(|t| {
            let (a, b) = (bounds[t], bounds[t + 1]);
            s.spawn(move || count(input, a, b))
        }).collect();
        handles.into_iter().map(|h| h.join().unwrap_or(0)).collect()
    });
    let mut starts = vec![0usize; threads + 1];
    for t in 0..threads {
        starts[t + 1] = starts[t] + counts[t];
    }
    (bounds, starts)
}

/// Join every row on `threads` threads into `out`, whose length is at least the kept
/// cells' count: that count, or `Err` (outputs too short, or a code beyond `C`).
pub fn join<C: Code>(input: &Input, n_rows: usize, threads: usize, out: Output<C>) -> Result<usize, ()> {
    let (bounds, starts) = plan(input, n_rows, threads);
    let total = *starts.last().unwrap_or(&0);
    if total > out.slot.len() || total > out.doc.len() || total > out.grade.len() || total > out.repeated.len() || out.counts.len() != n_rows {
        return Err(());
    }
    let Output { mut slot, mut doc, mut grade, mut repeated, mut counts } = out;
    let mut parts = Vec::new();
    for t in 0..bounds.len() - 1 {
        let n = starts[t + 1] - starts[t];
        let (s0, s1) = std::mem::take(&mut slot).split_at_mut(n);
        let (d0, d1) = std::mem::take(&mut doc).split_at_mut(n);
        let (g0, g1) = std::mem::take(&mut grade).split_at_mut(n);
        let (r0, r1) = std::mem::take(&mut repeated).split_at_mut(n);
        let (c0, c1) = std::mem::take(&mut counts).split_at_mut(bounds[t + 1] - bounds[t]);
        parts.push((bounds[t], bounds[t + 1], Output { slot: s0, doc: d0, grade: g0, repeated: r0, counts: c0 }));
        (slot, doc, grade, repeated, counts) = (s1, d1, g1, r1, c1);
    }
    let fitted = std::thread::scope(|s| {
        let handles: Vec<_> = parts.into_iter().map(|(a, b, part)| s.spawn(move || fill(input, a, b, part))).collect();
        handles.into_iter().all(|h| h.join().unwrap_or(false))
    });
    if fitted { Ok(total) } else { Err(()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_as<C: Code + Default + Into<i64>>(ids: &[i64], n_cols: usize, row_slot: &[i64], offsets: &[i64], docs: &[i64], grades: &[i64], threads: usize) -> Result<Vec<(i64, i64, i64, u8)>, ()> {
        let input = Input { ids, n_cols, row_slot, gold_offsets: offsets, gold_docs: docs, gold_grades: grades };
        let n = ids.len();
        let (mut s, mut d, mut g, mut r) = (vec![C::default(); n], vec![C::default(); n], vec![0; n], vec![0u8; n]);
        let mut c = vec![-1; row_slot.len()];
        let total = join(&input, row_slot.len(), threads, Output { slot: &mut s, doc: &mut d, grade: &mut g, repeated: &mut r, counts: &mut c })?;
        // Each row's count is its kept cells: 0 for a row skipped.
        let kept: Vec<i64> = row_slot.iter().enumerate().map(|(i, &slot)| if slot < 0 { 0 } else { ids[i * n_cols..(i + 1) * n_cols].iter().filter(|&&d| d >= 0).count() as i64 }).collect();
        assert_eq!(c, kept);
        assert_eq!(c.iter().sum::<i64>() as usize, total);
        Ok((0..total).map(|i| (s[i].into(), d[i].into(), g[i], r[i])).collect())
    }

    fn run(ids: &[i64], n_cols: usize, row_slot: &[i64], offsets: &[i64], docs: &[i64], grades: &[i64], threads: usize) -> Vec<(i64, i64, i64, u8)> {
        let wide = run_as::<i64>(ids, n_cols, row_slot, offsets, docs, grades, threads).unwrap();
        assert_eq!(run_as::<i32>(ids, n_cols, row_slot, offsets, docs, grades, threads), Ok(wide.clone()));
        wide
    }

    #[test]
    fn padding_is_skipped_and_judgments_found() {
        // Row 0: 3 1 -1 2 against {1: 1, 2: 2}; row 1 not evaluated; row 2: -1 -1 5 5.
        let ids = [3, 1, -1, 2, 7, 7, 7, 7, -1, -1, 5, 5];
        let cells = run(&ids, 4, &[0, -1, 1], &[0, 2, 2, 3], &[1, 2, 5], &[1, 2, 3], 1);
        assert_eq!(cells, vec![
            (0, 3, UNJUDGED, 0), (0, 1, 1, 0), (0, 2, 2, 0),
            (1, 5, 3, 1), (1, 5, 3, 1),
        ]);
    }

    #[test]
    fn threads_give_the_same_cells() {
        let ids: Vec<i64> = (0..600).map(|i| ((i * 7919) % 13) as i64 - 1).collect();
        let row_slot: Vec<i64> = (0..60).map(|r| if r % 7 == 3 { -1 } else { r }).collect();
        let offsets: Vec<i64> = (0..=60).map(|r| r * 2).collect();
        let docs: Vec<i64> = (0..60).flat_map(|r| [r % 5, r % 5 + 5]).collect();
        let grades: Vec<i64> = (0..120).collect();
        let one = run(&ids, 10, &row_slot, &offsets, &docs, &grades, 1);
        assert_eq!(one, run(&ids, 10, &row_slot, &offsets, &docs, &grades, 4));
        assert_eq!(one.len(), ids.chunks(10).zip(&row_slot).filter(|(_, &s)| s >= 0).map(|(row, _)| row.iter().filter(|&&d| d >= 0).count()).sum::<usize>());
    }

    #[test]
    fn an_empty_input_keeps_nothing() {
        assert!(run(&[], 0, &[], &[0], &[], &[], 2).is_empty());
        assert!(run(&[-1, -1], 2, &[0], &[0, 0], &[], &[], 2).is_empty());
    }

    #[test]
    fn a_doc_int_beyond_int32_stops_a_narrow_join() {
        let big = i64::from(i32::MAX) + 1;
        let ids = [1, big, -1, 2];
        let wide = run_as::<i64>(&ids, 2, &[0, 1], &[0, 0, 0], &[], &[], 2).unwrap();
        assert_eq!(wide, vec![(0, 1, UNJUDGED, 0), (0, big, UNJUDGED, 0), (1, 2, UNJUDGED, 0)]);
        assert_eq!(run_as::<i32>(&ids, 2, &[0, 1], &[0, 0, 0], &[], &[], 2), Err(()));
        // The row of the big id not evaluated: nothing beyond int32 is written.
        assert_eq!(run_as::<i32>(&ids, 2, &[-1, 0], &[0, 0, 0], &[], &[], 2), Ok(vec![(0, 2, UNJUDGED, 0)]));
    }

    #[test]
    fn outputs_shorter_than_the_cells_are_refused() {
        let input = Input { ids: &[1, 2, 3], n_cols: 3, row_slot: &[0], gold_offsets: &[0, 0], gold_docs: &[], gold_grades: &[] };
        let (mut s, mut d, mut g, mut r, mut c) = (vec![0i64; 2], vec![0i64; 2], vec![0; 2], vec![0u8; 2], vec![0; 1]);
        let out = Output { slot: &mut s, doc: &mut d, grade: &mut g, repeated: &mut r, counts: &mut c };
        assert_eq!(join(&input, 1, 1, out), Err(()));
    }
}
