"""Loading a model file: the archive read and checked, the state decoded, the model
built and checked as a whole; nothing but :class:`ModelFileError` escapes."""

from __future__ import annotations

import os
import zipfile

from .archive import _ArchiveReader
from .checks import (
    _check_model,
    _check_parameters,
    _default_constructible,
)
from .decoding import _built, _check_restored, _Decoder, _find_class, _migrate, _Spec
from .format import (
    ADDED_PARAMETERS,
    ModelFileError,
    _Problem,
)
from .writing import _is_model_class


# ---------------------------------------------------------------------------------- load
def load(path):
    """Read a model written by :func:`save`; training can resume with ``partial_fit``.

    The whole file is checked before the model is built (module docstring); files written
    by older versions of streamsvm are upgraded on the way in.

    Raises
    ------
    FileNotFoundError
        No such file.
    ModelFileError
        Anything else: the file is truncated or corrupt, is not a streamsvm model, is
        inconsistent (arrays of the wrong shape or dtype, non-finite values, sizes that do not
        match), or was written by a newer format version than this library reads. The message
        names the file and the first problem found.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no model file at {path!r}")
    try:
        return _Loader(path).load()
    except ModelFileError:
        raise
    except _Problem as problem:
        raise ModelFileError(f"{path!r} is not a usable streamsvm model: {problem}") from None
    except (zipfile.BadZipFile, EOFError, OSError, zipfile.LargeZipFile) as exc:
        raise ModelFileError(
            f"{path!r} could not be read as a streamsvm model (truncated or corrupt): {exc}"
        ) from None
    except Exception as exc:  # noqa: BLE001 - the contract: nothing but ModelFileError escapes
        raise ModelFileError(
            f"{path!r} is not a usable streamsvm model (truncated or corrupt): "
            f"{type(exc).__name__}: {exc}"
        ) from None



class _Loader(_ArchiveReader, _Decoder):
    """One load: the archive's directory, the header, the arrays, then the model."""

    def __init__(self, path: str):
        self.path = path


    # -------------------------------------------------------------- building the model
    def _build(self, header: dict):
        cls = _find_class(header["estimator"], "the estimator")
        if not _is_model_class(cls):
            raise _Problem(f"{header['estimator']!r} is not a streamsvm estimator")
        params = {k: self.decode(v, f"parameter {k!r}") for k, v in header["params"].items()}
        state = self._attributes(header["state"], "the model", cls)
        known = cls().get_params(deep=False) if _default_constructible(cls) else None
        if known is not None:
            extra = sorted(set(params) - set(known))
            if extra:
                raise _Problem(f"{cls.__name__} has no parameters {extra}")
            clash = sorted(set(params) & set(state))
            if clash:
                raise _Problem(f"the state repeats the parameters {clash}")
        path = f"{cls.__module__}.{cls.__qualname__}"
        for (introduced, target), added in sorted(ADDED_PARAMETERS.items()):
            if target == path and self.version < introduced:
                for name, value in added.items():
                    params.setdefault(name, value)
        spec = _Spec(cls, state)
        _migrate(spec, self.version, params)
        try:
            model = cls(**_built(params))
        except (TypeError, ValueError) as exc:
            raise _Problem(f"its parameters are invalid: {exc}") from None
        _check_parameters(model)
        model.__dict__.update(_built(spec.state))
        restore = getattr(model, "_restore_transient", None)
        if restore is not None:
            restore()
        _check_restored(model)
        _check_model(model)
        unused = set(self.arrays) - self.used
        if unused:
            raise _Problem(f"the archive holds arrays nothing refers to: {sorted(unused)[:5]}")
        return model

