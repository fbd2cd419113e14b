"""Tokenize problem texts by reusing mathy_core's tokens of their pieces.

mathy_core's tokenizer reads a text left to right, and a space only ends the token
before it (it makes no token of its own unless padding is asked for). So the tokens
of a text are the tokens of its space-separated pieces, one piece after another.
The texts an episode visits share most of their pieces (`4x`, `+`, `y^2`), so
`PieceTokenizer` asks mathy_core's tokenizer about each piece once and keeps the
answer.
"""

from typing import Any, Dict, List, Optional, Tuple

from mathy_core.tokenizer import TOKEN_TYPES, Token, Tokenizer

from .._support.lru import Memo

PIECE_MEMORY_SIZE = 4096
"""Pieces (with their tokens) a tokenizer keeps."""


class PieceTokenizer(Tokenizer):
    """mathy_core's `Tokenizer`, giving the same tokens, that tokenizes each
    space-separated piece of a text once.

    Tokens are shared between the lists it returns; mathy_core's parser only reads
    them. A text with a piece mathy_core rejects is tokenized whole, so the error
    is the one mathy_core raises for that text. Every text is tokenized whole with
    `exclude_padding=False` (spaces become tokens), and so is anything that is not
    a `str`. Changing `functions` forgets the pieces seen before.
    """

    def __init__(self, exclude_padding: bool = True) -> None:
        super().__init__(exclude_padding=exclude_padding)
        self._pieces: Memo[str, Tuple[Token, ...]] = Memo(PIECE_MEMORY_SIZE)
        self._functions_seen: Dict[str, Any] = dict(self.functions)

    def tokenize(self, buffer: str) -> List[Token]:
        if not self.exclude_padding or not isinstance(buffer, str):
            return super().tokenize(buffer)
        if self.functions != self._functions_seen:
            # A piece such as `abs` may now be a function name.
            self._pieces.clear()
            self._functions_seen = dict(self.functions)
        tokens = self._tokens_of_pieces(buffer)
        if tokens is None:
            # mathy_core's own error, about the whole text.
            return super().tokenize(buffer)
        tokens.append(Token("", TOKEN_TYPES.EOF))
        return tokens

    def _tokens_of_pieces(self, buffer: str) -> Optional[List[Token]]:
        """The tokens of `buffer`'s pieces, less the end-of-text token; None when
        mathy_core rejects a piece."""
        pieces = self._pieces
        tokens: List[Token] = []
        for piece in buffer.split(" "):
            known = pieces.get(piece)
            if known is None:
                if not piece:
                    continue  # between two spaces
                try:
                    # mathy_core's tokens for the piece, less its end-of-text token.
                    known = pieces.put(piece, tuple(super().tokenize(piece)[:-1]))
                except Exception:
                    return None
            tokens.extend(known)
        return tokens


__all__ = ("PIECE_MEMORY_SIZE", "PieceTokenizer")
