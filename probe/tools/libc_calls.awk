# The C library functions that a link's own objects call, read from the
# cross reference table of its map (ld -Map=FILE --cref): each symbol that
# libc (or libnosys, newlib's system-call stubs) defines and an object file
# outside the libraries and start files refers to, one per line. check-cross
# compares them with the functions that need no OS (BARE_LIBC).
/^Cross Reference Table/ { table = 1; next }
!table || NF == 0 { next }
/^[^ \t]/ { symbol = $1; definer = NF > 1 ? $2 : ""; next }
definer == "" { definer = $1; next } # a long name: its definer on the next line
definer ~ /\/lib(c|c_nano|g|g_nano|nosys)\.a\(/ && $1 !~ /\(/ && $1 !~ /(^|\/)crt[^\/]*\.o$/ { print symbol }
