// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// One-off generator of data/brep/box_cylinder.igs (gmsh 4.8 cannot write IGES): OpenCASCADE's IGES writer in B-rep
// mode (entity 186, manifold solids) on a compound of a box 10 x 20 x 30 at the origin and a cylinder of radius 5 and
// height 20 on the z axis through (30, 0, 0), in millimetres (volume 6000 + 500 pi mm^3). Build and run (Debian 12, libocct-data-exchange-dev and
// libocct-modeling-algorithms-dev):
//   g++ -I/usr/include/opencascade make_iges.cpp -o make_iges -lTKIGES -lTKXSBase -lTKPrim -lTKTopAlgo -lTKBRep \
//       -lTKG3d -lTKMath -lTKernel && ./make_iges box_cylinder.igs
#include <BRepPrimAPI_MakeBox.hxx>
#include <BRepPrimAPI_MakeCylinder.hxx>
#include <BRep_Builder.hxx>
#include <IGESControl_Controller.hxx>
#include <IGESControl_Writer.hxx>
#include <Interface_Static.hxx>
#include <TopoDS_Compound.hxx>
#include <gp_Ax2.hxx>

int main(int argc, char** argv)
{
    if (argc != 2)
    {
        return 2;
    }
    TopoDS_Shape box = BRepPrimAPI_MakeBox(10.0, 20.0, 30.0).Shape();
    TopoDS_Shape cyl = BRepPrimAPI_MakeCylinder(gp_Ax2(gp_Pnt(30.0, 0.0, 0.0), gp_Dir(0.0, 0.0, 1.0)), 5.0, 20.0).Shape();
    TopoDS_Compound both;
    BRep_Builder builder;
    builder.MakeCompound(both);
    builder.Add(both, box);
    builder.Add(both, cyl);
    IGESControl_Controller::Init();
    IGESControl_Writer writer("MM", 1); // millimetres (OpenCASCADE's own unit), B-rep mode
    writer.AddShape(both);
    writer.ComputeModel();
    return writer.Write(argv[1]) ? 0 : 1;
}
