"""The input layer (``docs/design.md``): features and labels checked before any state
changes (:mod:`~streamsvm.input.validation`), dict examples as columns
(:mod:`~streamsvm.input.vocabulary`) and a model's feature space grown with them
(:mod:`~streamsvm.input.widen`), River's base class (:mod:`~streamsvm.input.river`) and the
per-row shortcut of ``learn_one`` / ``predict_one`` (:mod:`~streamsvm.input.row_path`)."""
