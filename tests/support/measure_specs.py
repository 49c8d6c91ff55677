"""Every registered numeric measure as specs, for the tests that must cover each family."""

from __future__ import annotations

from prfeval._measures import REGISTRY


def every_measure(*, subtopics: bool = True) -> list[str]:
    """Every registered measure, at cutoffs 1 and 10 and with beta and rel where it takes them
    (the text measures runid and relstring left out: they have no values to compare; so are
    trec_eval's preference measures, which read preference judgments, not qrels). With
    ``subtopics=False``, the diversity measures too (for an engine that has no subtopic
    judgments)."""
    specs = []
    for d in REGISTRY.values():
        if d.is_text or getattr(d, "needs_preferences", False):
            continue
        if d.subtopics and not subtopics:
            continue
        tails = {"required": ("@1", "@10"), "optional": ("", "@10"), "level": ("@0", "@0.5")}
        for tail in tails.get(d.cutoff, ("",)):
            specs.append(d.name + tail)
            if "beta" in d.params:
                specs.append(f"{d.name}(beta=2){tail}")
            if "rel" in d.params:
                specs.append(f"{d.name}(rel=2){tail}")
    return specs
