/* SPDX-License-Identifier: MIT */
/* Touch as a page expects it on an iPad, where WPE 2.38 falls short: a script in diptych-web's
   own world (the page can neither see nor replace it; the DOM and its events are shared)
   - dispatches PointerEvents with pointerType "touch" for every touch (and "pen", with its
     pressure and tilt, in place of the mouse's for the pen), isTrusted false;
   - hides from the page the wheel events WebKit's own touch scrolling is made of, and the
     mouse's pointer events WebKit makes of a touch, while a finger is down and just after, so a
     map never zooms on a pan;
   - keeps WebKit from scrolling under a touch whose element says `touch-action: none` (a map,
     a canvas: WPE 2.38 does not read the property, and once it scrolls it stops telling the
     page the finger's moves);
   - turns a touch the compositor cancelled (palm rejection, an edge swipe) into `touchcancel`
     and `pointercancel`, and the click WebKit would make of it into nothing. (touch.h) */
#include "touch.h"

#include <math.h>
#include <stdio.h>

const char *touch_script =
    "(function(){if(window.__diptychTouch)return;"
    "var D=window.__diptychTouch={fingers:0,quietUntil:0,noClickUntil:0,cancelled:{},targets:{},still:{},pen:null},now=function(){return performance.now();};"
    "function still(e){for(;e&&e.nodeType===1;e=e.parentElement){var a=getComputedStyle(e).touchAction;if(a==='none')return true;}return false;}"
    "function pointer(type,init,target){if(!target||!target.dispatchEvent)return;var quiet=/enter|leave/.test(type);"
    "init.bubbles=!quiet;init.cancelable=!quiet&&type!=='pointercancel';init.composed=true;"
    "try{target.dispatchEvent(new PointerEvent(type,init));}catch(e){}}"
    "function touchInit(t,primary,down){return{pointerId:2+t.identifier,pointerType:'touch',isPrimary:primary,"
    "clientX:t.clientX,clientY:t.clientY,screenX:t.screenX,screenY:t.screenY,width:Math.max(1,2*(t.radiusX||0.5)),"
    "height:Math.max(1,2*(t.radiusY||0.5)),pressure:down?0.5:0,buttons:down?1:0,button:0};}"
    "function each(ev,f){for(var i=0;i<ev.changedTouches.length;i++)f(ev.changedTouches[i],i);}"
    "window.addEventListener('touchstart',function(ev){if(!ev.isTrusted)return;var first=ev.touches.length===ev.changedTouches.length;"
    "D.fingers=ev.touches.length;each(ev,function(t,i){var g=D.targets[t.identifier]=t.target,p=first&&i===0,n=touchInit(t,p,true);D.still[t.identifier]=still(g);"
    "n.button=-1;pointer('pointerover',n,g);pointer('pointerenter',n,g);n.button=0;pointer('pointerdown',n,g);});},true);"
    "window.addEventListener('touchmove',function(ev){if(!ev.isTrusted)return;each(ev,function(t){var n=touchInit(t,t.identifier===ev.touches[0].identifier,true);"
    "if(D.still[t.identifier]&&ev.cancelable)ev.preventDefault();"
    "n.button=-1;pointer('pointermove',n,D.targets[t.identifier]);});},{capture:true,passive:false});"
    "window.addEventListener('touchend',function(ev){if(!ev.isTrusted)return;D.fingers=ev.touches.length;if(!D.fingers)D.quietUntil=now()+400;"
    "var hidden=false;each(ev,function(t){var g=D.targets[t.identifier],n=touchInit(t,true,false);delete D.targets[t.identifier];delete D.still[t.identifier];"
    "if(D.cancelled[t.identifier]){delete D.cancelled[t.identifier];hidden=true;D.noClickUntil=now()+800;"
    "pointer('pointercancel',n,g);var c;try{c=new TouchEvent('touchcancel',{bubbles:true,cancelable:false,composed:true,changedTouches:[t],touches:[],targetTouches:[]});}"
    "catch(e){c=new Event('touchcancel',{bubbles:true});}if(g&&g.dispatchEvent)g.dispatchEvent(c);}"
    "else{pointer('pointerup',n,g);n.button=-1;pointer('pointerout',n,g);pointer('pointerleave',n,g);}});"
    "if(hidden)ev.stopImmediatePropagation();},true);"
    "window.addEventListener('wheel',function(ev){if(ev.isTrusted&&(D.fingers>0||now()<D.quietUntil))ev.stopImmediatePropagation();},true);"
    "['click','mouseup'].forEach(function(k){window.addEventListener(k,function(ev){if(ev.isTrusted&&now()<D.noClickUntil){"
    "ev.preventDefault();ev.stopImmediatePropagation();if(k==='click')D.noClickUntil=0;}},true);});"
    "['pointerover','pointerenter','pointerdown','pointermove','pointerup','pointercancel','pointerout','pointerleave'].forEach(function(k){"
    "window.addEventListener(k,function(ev){if(!ev.isTrusted||ev.pointerType!=='mouse')return;"
    "if(D.fingers>0||now()<D.quietUntil){ev.stopImmediatePropagation();return;}"
    "if(D.pen){ev.stopImmediatePropagation();var p=D.pen,n={pointerId:10,pointerType:'pen',isPrimary:true,clientX:ev.clientX,clientY:ev.clientY,"
    "screenX:ev.screenX,screenY:ev.screenY,width:1,height:1,pressure:ev.buttons?p.pressure:0,tiltX:p.tiltX,tiltY:p.tiltY,buttons:ev.buttons,button:ev.button};"
    "pointer(k,n,ev.target);if(k==='pointerup'&&!p.down)D.pen=null;}},true);});"
    "D.cancel=function(id){D.cancelled[id]=1;};"
    "D.setPen=function(down,pressure,tx,ty){D.pen={down:down,pressure:pressure,tiltX:tx,tiltY:ty};};})();";

static void run(WebKitWebView *webkit, const char *source) {
    if (webkit) webkit_web_view_run_javascript_in_world(webkit, source, SCRIPT_WORLD, NULL, NULL, NULL);
}

/* (Said before WebKit gets the end: the two reach the web process in order.) */
void web_touch_cancelled(WebKitWebView *webkit, int32_t id) {
    char source[96];
    snprintf(source, sizeof source, "window.__diptychTouch&&__diptychTouch.cancel(%d)", (int)id);
    run(webkit, source);
}

/* (Told when it changes by a step worth seeing.) */
void web_touch_pen(struct web_pen_told *told, WebKitWebView *webkit, int down, double pressure, double tilt_x, double tilt_y) {
    if (down == told->down && fabs(pressure - told->pressure) < 0.02 && fabs(tilt_x - told->tilt_x) < 1 && fabs(tilt_y - told->tilt_y) < 1) return;
    told->down = down;
    told->pressure = pressure;
    told->tilt_x = tilt_x;
    told->tilt_y = tilt_y;
    char source[160];
    snprintf(source, sizeof source, "window.__diptychTouch&&__diptychTouch.setPen(%d,%.3f,%.1f,%.1f)", down, isfinite(pressure) ? pressure : 0,
             isfinite(tilt_x) ? tilt_x : 0, isfinite(tilt_y) ? tilt_y : 0);
    run(webkit, source);
}
