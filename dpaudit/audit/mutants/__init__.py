"""The mutant library (realistic privacy bugs in the references) and the runs that measure what catches them."""
