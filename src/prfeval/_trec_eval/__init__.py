"""trec_eval apart: everything ``prfeval trec_eval`` needs to be trec_eval 9.0.8 (and 10.0) to
the byte, and nothing :func:`prfeval.evaluate` needs.

As trec_eval's own ``measures.c`` is a table apart from its ``m_*.c`` maths, this package is an
adapter above the measures: it reads trec_eval's dialect of the input files with C's number
parsers (:mod:`~prfeval._trec_eval.dialect`, :mod:`~prfeval._trec_eval.c_numbers`), follows its
summary rules and prints its rows (:mod:`~prfeval._trec_eval.summary`,
:mod:`~prfeval._trec_eval.printing`), takes its ``-R qrels_jg``, ``-R prefs`` and ``-Z`` paths,
and drives it all from trec_eval's command line (:mod:`~prfeval._trec_eval.driver`). The
measures themselves, their maths and IR conventions, stay in :mod:`prfeval._measures`;
``prfeval evaluate`` loads no module of this package.
"""
