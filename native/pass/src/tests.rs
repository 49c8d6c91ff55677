//! Units of the pass: its number parsers, its layout checks, its tie rule and its boundary.

use super::*;

#[test]
fn scores_parse_as_rust_parses_them() {
    for text in ["0", "12.5", "-3e-2", "1e22", "0.1", "123456789012345678901234", "-0",
                 "1E5", "9007199254740993", "2.2250738585072014e-308"] {
        let ours = parse_score(text.as_bytes());
        let std: Option<f64> = text.parse().ok();
        assert_eq!(ours.map(f64::to_bits), std.map(f64::to_bits), "{text}");
    }
    // Rarer spellings may be left to Arrow (None), never read otherwise.
    for text in ["5.", ".5", "-.5e1", "1e400"] {
        if let Some(ours) = parse_score(text.as_bytes()) {
            assert_eq!(ours.to_bits(), text.parse::<f64>().unwrap().to_bits(), "{text}");
        }
    }
    for text in ["", "-", "abc", "1.2.3", "nan", "inf", "1e", "0x10"] {
        assert_eq!(parse_score(text.as_bytes()), None, "{text}");
    }
}

#[test]
fn grades_are_integers_of_at_most_four_digits() {
    assert_eq!(parse_grade(b"3"), Some(3));
    assert_eq!(parse_grade(b"-1"), Some(-1));
    assert_eq!(parse_grade(b"9999"), Some(9999));
    for text in ["", "-", "12345", "1.0", "a", "+1"] {
        assert_eq!(parse_grade(text.as_bytes()), None, "{text}");
    }
}

/// Read `run` against `qrels` with rank order asked: the first segment.
fn first_segment(qrels: &[u8], run: &[u8]) -> (Box<Segment>, *mut Judged, *mut RunPass) {
    unsafe {
        let j = prf_judge(qrels.as_ptr(), qrels.len(), 2);
        assert_eq!((&*j).status[0], OK);
        let r = prf_run(j, run.as_ptr(), run.len(), 1000, 2, 1);
        (Box::from_raw(prf_next(r)), j, r)
    }
}

fn free(j: *mut Judged, r: *mut RunPass) {
    unsafe {
        prf_free_run(r);
        prf_free_judged(j);
    }
}

#[test]
fn ties_rank_by_doc_id_descending_in_bytes() {
    let qrels = b"q 0 d9 1\n";
    // Scores: d2 highest; d10, d9 and d1 tied: "d9" > "d10" > "d1" in bytes.
    let run = b"q Q0 d10 1 1 r\nq Q0 d2 2 2.5 r\nq Q0 d9 3 1 r\nq Q0 d1 4 1.0 r\n";
    let (segment, j, r) = first_segment(qrels, run);
    assert_eq!(segment.status[0], OK);
    assert_eq!(segment.order, vec![1, 2, 0, 3]);
    // The line of d9 is judged grade 1; the others are not.
    assert_eq!(segment.run_grade, vec![NO_GRADE, NO_GRADE, 1, NO_GRADE]);
    drop(segment);
    free(j, r);
}

#[test]
fn a_run_line_of_five_fields_is_refused_at_its_line() {
    let (segment, j, r) = first_segment(b"q 0 d 1\n", b"q Q0 d 1 1 r\nq Q0 e 2 1\n");
    assert_eq!(segment.status[0], RUN_LAYOUT);
    assert_eq!(segment.status[1], 2);
    drop(segment);
    free(j, r);
}

#[test]
fn a_repeated_judgment_refuses_the_qrels() {
    let qrels = b"q 0 d 1\nq 0 d 2\n";
    unsafe {
        let j = prf_judge(qrels.as_ptr(), qrels.len(), 1);
        assert_eq!((&*j).status[0], REPEATED_JUDGMENT);
        prf_free_judged(j);
    }
}

#[test]
fn a_panic_is_caught_at_the_boundary() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let caught = guarded(|| -1, || -> i64 { panic!("a bug") });
    std::panic::set_hook(previous);
    assert_eq!(caught, -1);
}

#[test]
fn reasons_are_words_ending_in_nul() {
    for code in 1..REASONS.len() {
        let text = REASONS[code];
        assert!(text.ends_with('\0') && text.len() > 1, "{code}");
    }
    assert_eq!(unsafe { *prf_reason(99) }, 0);
    assert_eq!(prf_abi_version(), ABI_VERSION);
}

/// Read the JSON Lines `run` (keys `qid`, `doc_id`, `scores`) against `qrels`, rank order
/// asked: the first segment.
fn first_list_segment(qrels: &[u8], run: &[u8]) -> (Box<Segment>, *mut Judged, *mut RunPass) {
    let names = b"qiddoc_idscores";
    let offsets: [i64; 4] = [0, 3, 9, 15];
    let keys = jsonl_lists::ListKeys {
        keys: names.as_ptr(), key_offsets: offsets.as_ptr(), n_keys: 3, query_key: 0,
        docs_key: 1, scores_key: 2, max_depth: 64,
    };
    unsafe {
        let j = prf_judge(qrels.as_ptr(), qrels.len(), 2);
        assert_eq!((&*j).status[0], OK);
        let r = prf_run_lists(j, run.as_ptr(), run.len(), 1000, 2, 1, &keys);
        assert!(!r.is_null());
        (Box::from_raw(prf_next(r)), j, r)
    }
}

#[test]
fn a_run_of_lists_is_a_row_an_item_joined_as_lines_are() {
    let qrels = b"q1 0 b 2\nq2 0 x 1\n";
    // q1 on two lines one after the other (one query), a blank line, an empty list.
    let run = b"{\"qid\": \"q1\", \"doc_id\": [\"a\", \"b\"], \"scores\": [1, 3]}\n\n\
                {\"scores\": [2], \"doc_id\": [\"c\"], \"qid\": \"q1\"}\n\
                {\"qid\": \"q3\", \"doc_id\": [], \"scores\": []}\n\
                {\"qid\": \"q7\", \"doc_id\": [\"d\"], \"scores\": [0.5]}\n";
    let (segment, j, r) = first_list_segment(qrels, run);
    assert_eq!(segment.status[0], OK);
    assert_eq!(segment.status[2], 4); // rows: a, b, c, d
    assert_eq!(segment.row_line, vec![1, 1, 3, 5]);
    assert_eq!(segment.scores, vec![1.0, 3.0, 2.0, 0.5]);
    // Queries q1 (rows 0-2), q3 (none), q7 (row 3).
    assert_eq!(segment.run_start, vec![0, 3, 3, 4]);
    assert_eq!(segment.q_arena, b"q1q3q7".to_vec());
    assert_eq!(segment.run_grade, vec![NO_GRADE, 2, NO_GRADE, NO_GRADE]);
    assert_eq!(segment.order, vec![1, 2, 0, 3]); // b (3), c (2), a (1)
    drop(segment);
    free(j, r);
}

#[test]
fn a_run_of_lists_not_plain_or_not_grouped_is_refused() {
    let qrels = b"q1 0 b 2\n";
    let apart = b"{\"qid\": \"q1\", \"doc_id\": [\"a\"], \"scores\": [1]}\n\
                  {\"qid\": \"q2\", \"doc_id\": [\"a\"], \"scores\": [1]}\n\
                  {\"qid\": \"q1\", \"doc_id\": [\"b\"], \"scores\": [1]}\n";
    let objects = b"{\"qid\": \"q1\", \"doc_id\": [{\"id\": \"a\"}], \"scores\": [1]}\n";
    for (run, why) in [(&apart[..], NOT_GROUPED), (&objects[..], RUN_LAYOUT)] {
        let (segment, j, r) = first_list_segment(qrels, run);
        assert_eq!(segment.status[0], why);
        drop(segment);
        free(j, r);
    }
}

#[test]
fn judgments_as_lists_are_grade_one_each_and_serve_a_run() {
    let names = b"qiddoc_id";
    let offsets: [i64; 3] = [0, 3, 9];
    let keys = jsonl_lists::ListKeys {
        keys: names.as_ptr(), key_offsets: offsets.as_ptr(), n_keys: 2, query_key: 0,
        docs_key: 1, scores_key: -1, max_depth: 64,
    };
    let gold = b"{\"qid\": \"q1\", \"doc_id\": [\"b\", \"c\"]}\n{\"qid\": \"q2\", \"doc_id\": []}\n";
    let run = b"q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq1 Q0 c 3 1 r\n";
    unsafe {
        let j = prf_judge_lists(gold.as_ptr(), gold.len(), 2, &keys);
        assert_eq!((&*j).status[0], OK);
        assert_eq!((&*j).j_grade, vec![1, 1]);
        let r = prf_run(j, run.as_ptr(), run.len(), 1000, 2, 1);
        let segment = Box::from_raw(prf_next(r));
        assert_eq!(segment.run_grade, vec![NO_GRADE, 1, 1]);
        drop(segment);
        free(j, r);
        let repeated = b"{\"qid\": \"q1\", \"doc_id\": [\"b\", \"b\"]}\n";
        let j = prf_judge_lists(repeated.as_ptr(), repeated.len(), 1, &keys);
        assert_eq!((&*j).status[0], REPEATED_JUDGMENT);
        prf_free_judged(j);
        let objects = b"{\"qid\": \"q1\", \"doc_id\": [{\"id\": \"b\"}]}\n";
        let j = prf_judge_lists(objects.as_ptr(), objects.len(), 1, &keys);
        assert_eq!(((&*j).status[0], (&*j).status[1]), (QRELS_LAYOUT, 1));
        prf_free_judged(j);
    }
}

#[test]
fn a_large_run_of_lists_comes_in_chunks_of_whole_queries_refused_only_at_first() {
    // 60,000 lines of 10 items: more rows than one chunk holds.
    let mut run = String::new();
    for q in 0..60_000 {
        run.push_str(&format!("{{\"qid\": \"q{q}\", \"doc_id\": [{}], \"scores\": [{}]}}\n",
                              (0..10).map(|d| format!("\"d{d}\"")).collect::<Vec<_>>().join(","),
                              (0..10).map(|d| format!("{d}")).collect::<Vec<_>>().join(",")));
    }
    let qrels = b"q1 0 d3 1\n";
    let (first, j, r) = first_list_segment(qrels, run.as_bytes());
    assert_eq!(first.status[0], OK);
    let rows0 = first.status[2] as usize;
    assert!(rows0 >= LIST_ROWS && rows0 % 10 == 0 && rows0 < 600_000);
    assert_eq!(first.row_line[rows0 - 1] as usize, rows0 / 10);
    let second = unsafe { Box::from_raw(prf_next(r)) };
    assert_eq!((second.status[0], second.status[2] as usize), (OK, 600_000 - rows0));
    assert_eq!(second.row_line[0] as usize, rows0 / 10 + 1);
    assert_eq!(second.status[6] as usize, run.len()); // its end: the whole text
    let done = unsafe { Box::from_raw(prf_next(r)) };
    assert_eq!(done.status[S_DONE], 1);
    drop((first, second, done));
    free(j, r);
    // A query again on the last line: refused on the first call, before any chunk.
    run.push_str("{\"qid\": \"q0\", \"doc_id\": [\"x\"], \"scores\": [1]}\n");
    let (first, j, r) = first_list_segment(qrels, run.as_bytes());
    assert_eq!((first.status[0], first.status[1]), (NOT_GROUPED, 60_001));
    drop(first);
    free(j, r);
}
