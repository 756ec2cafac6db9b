# Shared by scripts/milestone.sh and scripts/versus.sh (sourced, not run):
# the settings both check before they play against the sparring partners.

# book_and_code RULE SIZE PART: sets `book` (the development book's stem,
# e.g. f15) and `code` (the Gomocup rule number c-gomoku-cli takes) for a
# rule and board that has a book and a partner, or exits 2 naming PART
# ("held-out", "tuning") in the message.
book_and_code() {
  case "$1/$2" in
    freestyle/15) book=f15 code=0 ;;
    freestyle/20) book=f20 code=0 ;;
    standard/15) book=s15 code=1 ;;
    renju/15) book=r15 code=4 ;;
    *) echo "error: no $3 book and partner for $1 on ${2}x$2" >&2; exit 2 ;;
  esac
}

# whole_numbers NAME=VALUE ...: exits 2 unless every VALUE is a whole
# number, naming the first that is not.
whole_numbers() {
  local v
  for v in "$@"; do
    case "${v#*=}" in
      '' | *[!0-9]*) echo "error: ${v%%=*} must be a whole number, not '${v#*=}'" >&2; exit 2 ;;
    esac
  done
}
