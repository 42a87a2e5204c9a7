"""Slow reference of the kernel-row cache policy, with OrderedDicts instead of linked lists.

It tracks which ids are cached, their valid lengths and the counters; the values themselves
are checked by the tests against a truth table.
"""

from collections import OrderedDict


class NaiveRowCache:
    """LRU among unpinned rows, then among pinned rows; the last acquired row is spared."""

    def __init__(self, n_slots):
        self.n_slots = n_slots
        self.lists = {False: OrderedDict(), True: OrderedDict()}  # id -> valid length
        self.pinned = set()
        self.last = None  # id of the row the latest acquire returned
        self.hits = self.partial_hits = self.misses = self.evictions = 0

    def _find(self, row_id):
        for flag, rows in self.lists.items():
            if row_id in rows:
                return flag
        return None

    def length(self, row_id):
        flag = self._find(row_id)
        return None if flag is None else self.lists[flag][row_id]

    def eviction_order(self):
        return list(self.lists[False]) + list(self.lists[True])

    def acquire(self, row_id, n_columns):
        """Valid length of the row after the acquire, or None when the cache is disabled."""
        flag = self._find(row_id)
        if flag is not None:
            rows = self.lists[flag]
            if rows[row_id] >= n_columns:
                self.hits += 1
                valid = n_columns
            else:
                self.partial_hits += 1
                valid = rows[row_id]
            rows.move_to_end(row_id)
            self.last = row_id
            return valid
        self.misses += 1
        if self.n_slots < 2:
            return None
        if sum(len(rows) for rows in self.lists.values()) == self.n_slots:
            victim = None
            for candidate_flag in (False, True):
                keys = list(self.lists[candidate_flag])
                if keys and keys[0] == self.last:
                    keys = keys[1:]
                if keys:
                    victim = (candidate_flag, keys[0])
                    break
            del self.lists[victim[0]][victim[1]]
            self.evictions += 1
        self.lists[row_id in self.pinned][row_id] = 0
        self.last = row_id
        return 0

    def set_length(self, row_id, n_columns):
        flag = self._find(row_id)
        if flag is not None:
            self.lists[flag][row_id] = max(self.lists[flag][row_id], n_columns)

    def invalidate(self, row_id):
        flag = self._find(row_id)
        if flag is not None:
            del self.lists[flag][row_id]
            if self.last == row_id:
                self.last = None

    def set_pinned(self, row_id, pinned):
        if (row_id in self.pinned) == pinned:
            return
        if pinned:
            self.pinned.add(row_id)
        else:
            self.pinned.discard(row_id)
        flag = self._find(row_id)
        if flag is not None:
            length = self.lists[flag].pop(row_id)
            self.lists[pinned][row_id] = length

    def truncate(self, n_columns):
        for rows in self.lists.values():
            for row_id in rows:
                rows[row_id] = min(rows[row_id], n_columns)

    def swap_columns(self, i, j):
        low, high = min(i, j), max(i, j)
        for rows in self.lists.values():
            for row_id, length in rows.items():
                if low < length <= high:
                    rows[row_id] = low

    def swap_ids(self, i, j):
        for rows in self.lists.values():
            renamed = OrderedDict()
            for row_id, length in rows.items():
                renamed[{i: j, j: i}.get(row_id, row_id)] = length
            rows.clear()
            rows.update(renamed)
        pinned_i, pinned_j = i in self.pinned, j in self.pinned
        self.pinned -= {i, j}
        if pinned_i:
            self.pinned.add(j)
        if pinned_j:
            self.pinned.add(i)
        if self.last in (i, j):
            self.last = j if self.last == i else i

    def resize(self, n_slots):
        order = self.eviction_order()
        keep = set(order[len(order) - min(n_slots, len(order)):])
        self.evictions += len(order) - len(keep)
        for rows in self.lists.values():
            for row_id in [r for r in rows if r not in keep]:
                del rows[row_id]
        self.n_slots = n_slots
        self.last = None
