"""The predefined tokens of CR 111.10 (Treasure, Food, Clue, Role tokens …), read from the rules text.

:func:`predefined_tokens` derives them by *parsing* each 111.10x subrule of a
:class:`~oracle_tools.text.comprules.RulesDocument`; nothing about the tokens is typed in here. The token-phrase
grammar it reads them with ("a colorless Food artifact token with …") and CR 111.4's default token names are
:mod:`oracle_tools.text.tokentext`, shared with the Oracle-text "create …" clauses (:mod:`oracle_tools.tokens.answers`).
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass, replace

from oracle_tools.errors import RulesFileError
from oracle_tools.text.comprules import RulesDocument
from oracle_tools.text.oracletext import quote_mask  # quoted abilities: the Oracle-text layer's reading
from oracle_tools.text.tokentext import TokenDescription, default_token_name, parse_token_description

# --------------------------------------------------------------------------------------------
# CR 111.10: predefined tokens
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PredefinedToken:
    """One predefined token of CR 111.10, as its subrule defines it.

    ``name`` is the token's predefined name as the subrule introduces it ("A Treasure token is",
    "A Cursed Role token is") — Scryfall's token name. ``given_name`` is the name the subrule
    assigns with "named X" (Walker; the Roles' "Cursed", ...; Incubator's back face "Phyrexian
    Token"), else None. The in-game name is :attr:`game_name` (CR 111.4).

    For a double-faced token (CR 111.10i Incubator) ``faces`` holds the front and back face; the
    token's own characteristics are those of its front face (CR 712.8a) and its ``type_line`` is
    both faces' joined by " // " (Scryfall style).
    """

    rule: str
    name: str
    given_name: str | None
    colors: tuple[str, ...]
    supertypes: tuple[str, ...]
    card_types: tuple[str, ...]
    subtypes: tuple[str, ...]
    power: str | None
    toughness: str | None
    oracle_text: str
    type_line: str
    faces: tuple[PredefinedToken, ...]
    effective_date: datetime.date
    notes: tuple[
        str, ...
    ] = ()  # sentences of the subrule that are not part of the definition ("See rule 701.44, “Explore.”")

    @property
    def game_name(self) -> str:
        """The name the token has in the game: its given name, else subtypes + "Token" (CR 111.4)."""
        return self.given_name or default_token_name(self.subtypes)


def _split_sentences(text: str) -> list[str]:
    """Split on sentence ends outside quotes; a quoted ability ending in "." followed by a capital
    ends the sentence too (“... Transform this token.” Its back face ...)."""
    mask = quote_mask(text)
    out: list[str] = []
    start = 0
    n = len(text)
    for i, ch in enumerate(text):
        end_here = False
        nxt = text[i + 1 : i + 3]
        followed = i + 1 == n or (nxt[:1] == " " and nxt[1:2].isupper())
        if (ch == "." and not mask[i] and followed) or (
            ch in '\u201d"'
            and mask[i]
            and i > 0
            and text[i - 1] in ".!?"
            and followed
            and (i + 1 == n or not mask[i + 1])
        ):
            end_here = True
        if end_here:
            out.append(text[start : i + 1].strip())
            start = i + 1
    if text[start:].strip():
        out.append(text[start:].strip())
    return out


_SUBJECT_RE = re.compile(r"^(?:A|An)\s+(?P<key>.+?)\s+token\s+is\s+(?P<desc>.+)$", re.DOTALL)
_FACE_RE = re.compile(r"^(?:Its|The token's|The token’s)\s+(?P<face>front|back)\s+face\s+is\s+(?P<desc>.+)$", re.DOTALL)


def _token_from(
    desc: TokenDescription,
    *,
    rule: str,
    name: str,
    doc: RulesDocument,
    faces: tuple[PredefinedToken, ...] = (),
    notes: tuple[str, ...] = (),
) -> PredefinedToken:
    return PredefinedToken(
        rule=rule,
        name=name,
        given_name=desc.given_name,
        colors=desc.colors,
        supertypes=desc.supertypes,
        card_types=desc.card_types,
        subtypes=desc.subtypes,
        power=desc.power,
        toughness=desc.toughness,
        oracle_text=desc.oracle_text(),
        type_line=desc.type_line(),
        faces=faces,
        effective_date=doc.effective_date,
        notes=notes,
    )


def _parse_predefined(doc: RulesDocument, number: str) -> PredefinedToken:
    text = doc.statement(number)
    try:
        sentences = _split_sentences(" ".join(text.split()))
    except ValueError as exc:
        raise RulesFileError(f"{doc.source}: rule {number} is not understood: {exc}") from None
    if not sentences:
        raise RulesFileError(f"{doc.source}: rule {number} is empty")
    subject = _SUBJECT_RE.match(sentences[0])  # CR 111.10x "A Food token is a colorless Food artifact token with ..."
    if subject is None:
        raise RulesFileError(
            f"{doc.source}: rule {number} does not start 'A <name> token is ...': {sentences[0]!r}; "
            f"is this the official Comprehensive Rules text?"
        )
    key = subject.group("key").strip()
    try:
        desc = parse_token_description(subject.group("desc"))
    except ValueError as exc:
        raise RulesFileError(f"{doc.source}: rule {number} ({key} token) is not understood: {exc}") from None

    face_descs: dict[str, TokenDescription] = {}
    notes: list[str] = []
    for sent in sentences[1:]:
        fm = _FACE_RE.match(sent)  # CR 111.10i: "Its front face is ... Its back face is ..."
        if fm:
            try:
                face_descs[fm.group("face")] = parse_token_description(fm.group("desc"))
            except ValueError as exc:
                raise RulesFileError(
                    f"{doc.source}: rule {number} ({key} token) {fm.group('face')} face is not understood: {exc}"
                ) from None
        else:
            notes.append(sent)  # cross-references such as CR 111.10s "See rule 701.44, “Explore.”"

    if desc.double_faced or face_descs:
        if set(face_descs) != {"front", "back"}:
            raise RulesFileError(
                f"{doc.source}: rule {number} ({key} token) is double-faced but does not define both faces"
            )
        front_d, back_d = face_descs["front"], face_descs["back"]
        front = _token_from(front_d, rule=number, name=front_d.given_name or " ".join(front_d.subtypes) or key, doc=doc)
        back = _token_from(back_d, rule=number, name=back_d.given_name or " ".join(back_d.subtypes) or key, doc=doc)
        whole = _token_from(front_d, rule=number, name=key, doc=doc, faces=(front, back), notes=tuple(notes))
        # CR 712.8a: a double-faced permanent has its front face's characteristics; Scryfall joins type lines.
        return replace(whole, type_line=f"{front.type_line} // {back.type_line}")
    return _token_from(desc, rule=number, name=key, doc=doc, notes=tuple(notes))


def predefined_tokens(doc: RulesDocument) -> list[PredefinedToken]:
    """Every predefined token defined by the 111.10x subrules of ``doc``, in rule order."""
    numbers = doc.subrules("111.10")  # CR 111.10a, 111.10b, ... (letters l and o are skipped)
    if not numbers:
        raise RulesFileError(f"{doc.source}: rule 111.10 has no subrules defining predefined tokens")
    return [_parse_predefined(doc, n) for n in numbers]
