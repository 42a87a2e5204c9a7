"""The utilities layer (``docs/design.md``): parameter constraints and their one checker
(:mod:`~streamsvm.utils.params`), thread counts of the compiled loops
(:mod:`~streamsvm.utils.threads`), seeds (:mod:`~streamsvm.utils.seeds`), progress lines
(:mod:`~streamsvm.utils.progress`) and arrays that grow (:mod:`~streamsvm.utils.arrays`).
Nothing here imports the rest of the package."""
