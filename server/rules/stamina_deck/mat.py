"""The battle mat: a square of squares, one token per character, moves measured in squares."""

MOVE = 5  # squares a move card carries a character (5 sáhy)


def distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Squares between two squares, a diagonal step counting one."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def adjacent(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Contact: neighbouring squares, less than one sáh apart."""
    return distance(a, b) == 1


def on_mat(square: tuple[int, int], size: int) -> bool:
    return 0 <= square[0] < size and 0 <= square[1] < size
