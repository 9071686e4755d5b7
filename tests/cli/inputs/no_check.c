int x;
void plain(void) { x = 1; }
