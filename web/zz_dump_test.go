package web
import ("testing";"context";"os";"time")
func TestDump(t *testing.T){
 now:=time.Date(2025,1,2,3,4,5,0,time.UTC)
 l:=Layout{Title:"Anonymise",User:&User{Name:"Ann",Role:"support",TenantName:"Acme"},Nav:BuildNav(NavForms,nil),CSRF:"tok\"en",Flash:Flash{Kind:FlashError,Text:"Oops"}}
 AnonymisePreview(AnonymisePreviewPage{Layout:l,Email:"a@b.org",Phone:"+4915112345678",Counts:RecordCounts{FormSubmissions:2}}).Render(context.Background(),os.Stdout)
 Keys(KeysPage{Layout:l,Keys:[]KeyItem{{ID:"k1",Name:"web",Prefix:"cf_k1",Scopes:[]string{"all"},CreatedAt:now}},CanManage:true,Errors:FieldErrors{"scope":"pick one"}}).Render(context.Background(),os.Stdout)
}
