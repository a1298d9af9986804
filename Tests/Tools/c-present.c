/* SPDX-License-Identifier: MIT */
/* The C library asking for a menu of 500 long items (sent in pieces), an alert and its
   dismissal, for ClientBehaviourTests to compare with Swift's and Python's bytes. */
#define _GNU_SOURCE
#include "diptych-client.h"

#include <stdio.h>
#include <string.h>

int main(void) {
    char err[256];
    dc_connection *c = dc_connect("present", 0, err, sizeof err);
    if (!c) return fprintf(stderr, "%s\n", err), 1;
    static char labels[500][201];
    static dc_menu_item items[500];
    for (int i = 0; i < 500; i++) {
        snprintf(labels[i], sizeof labels[i], "Item %03d ", i);
        memset(labels[i] + 9, 'x', 191);
        labels[i][200] = 0;
        items[i].label = labels[i];
        items[i].flags = (i == 7 ? DC_MENU_SELECTED : 0) | (i % 50 == 0 ? DC_MENU_HEADER : 0);
    }
    dc_rect anchor = { 10, 20, 300, 44 };
    if (dc_present_menu(c, 3, anchor, "Pick", items, 500) != 0) return fprintf(stderr, "%s\n", dc_error(c)), 1;
    dc_alert_button buttons[2] = { { "Cancel", DC_BUTTON_STYLE_CANCEL }, { "OK", DC_BUTTON_STYLE_DEFAULT } };
    if (dc_present_alert(c, 4, "Name?", "Type it", DC_ALERT_FIELD_TEXT, "Name", "Bo", buttons, 2) != 0) return 1;
    if (dc_dismiss_presented(c, 4) != 0) return 1;
    if (dc_idle_inhibit(c, 1) != 0 || dc_idle_inhibit(c, 0) != 0) return 1;
    /* Not 501 items, nor 5 buttons: refused before anything is sent. */
    if (dc_present_alert(c, 5, "", "", DC_ALERT_FIELD_NONE, NULL, NULL, buttons, 5) == 0) return 2;
    while (dc_flush(c) != 0) {}
    dc_disconnect(c);
    return 0;
}
